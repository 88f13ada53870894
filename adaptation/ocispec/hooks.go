// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"slices"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// planHooks converts the hooks to append; nil if there are none, so that a
// spec without hooks keeps none.
func planHooks(h *api.Hooks) (*rspec.Hooks, error) {
	if h == nil {
		return nil, nil
	}
	out := &rspec.Hooks{}
	lists := []struct {
		kind string
		in   []*api.Hook
		out  *[]rspec.Hook
	}{
		//lint:ignore SA1019 deprecated in the spec, still sent by plugins
		{"prestart", h.Prestart, &out.Prestart},
		{"createRuntime", h.CreateRuntime, &out.CreateRuntime},
		{"createContainer", h.CreateContainer, &out.CreateContainer},
		{"startContainer", h.StartContainer, &out.StartContainer},
		{"poststart", h.Poststart, &out.Poststart},
		{"poststop", h.Poststop, &out.Poststop},
	}
	n := 0
	for _, l := range lists {
		for _, hook := range l.in {
			o, err := toOCIHook(hook)
			if err != nil {
				return nil, within(l.kind+" hook", hook.GetPath(), err)
			}
			*l.out = append(*l.out, o)
			n++
		}
	}
	if n == 0 {
		return nil, nil
	}
	return out, nil
}

// toOCIHook checks what the spec requires: a path, and a timeout above zero.
func toOCIHook(h *api.Hook) (rspec.Hook, error) {
	if h.GetPath() == "" {
		return rspec.Hook{}, invalid("hook has no path")
	}
	o := rspec.Hook{Path: h.Path, Args: slices.Clone(h.Args), Env: slices.Clone(h.Env)}
	if h.Timeout != nil {
		t := h.Timeout.Value
		if t <= 0 || int64(int(t)) != t {
			return rspec.Hook{}, invalid("timeout %d is not a positive number of seconds", t)
		}
		o.Timeout = ptr(int(t))
	}
	return o, nil
}

func applyHooks(spec *rspec.Spec, h *rspec.Hooks) {
	if h == nil {
		return
	}
	if spec.Hooks == nil {
		spec.Hooks = &rspec.Hooks{}
	}
	s := spec.Hooks
	//lint:ignore SA1019 see planHooks
	s.Prestart = append(s.Prestart, h.Prestart...)
	s.CreateRuntime = append(s.CreateRuntime, h.CreateRuntime...)
	s.CreateContainer = append(s.CreateContainer, h.CreateContainer...)
	s.StartContainer = append(s.StartContainer, h.StartContainer...)
	s.Poststart = append(s.Poststart, h.Poststart...)
	s.Poststop = append(s.Poststop, h.Poststop...)
}

func ptr[T any](v T) *T { return &v }
