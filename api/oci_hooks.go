// SPDX-License-Identifier: Apache-2.0

package api

import (
	rspec "github.com/opencontainers/runtime-spec/specs-go"
)

// FromOCIHooks converts spec hooks: nil gives nil, anything else a non-nil
// Hooks whose kinds are nil where the spec has none.
func FromOCIHooks(o *rspec.Hooks) *Hooks {
	if o == nil {
		return nil
	}
	return &Hooks{
		//lint:ignore SA1019 deprecated in the spec, still used by runtimes and plugins
		Prestart:        FromOCIHookSlice(o.Prestart),
		CreateRuntime:   FromOCIHookSlice(o.CreateRuntime),
		CreateContainer: FromOCIHookSlice(o.CreateContainer),
		StartContainer:  FromOCIHookSlice(o.StartContainer),
		Poststart:       FromOCIHookSlice(o.Poststart),
		Poststop:        FromOCIHookSlice(o.Poststop),
	}
}

// FromOCIHookSlice converts a list of spec hooks, in order, args and env
// copied, a nil timeout left unset. No hooks gives nil.
func FromOCIHookSlice(o []rspec.Hook) []*Hook {
	var hooks []*Hook
	for _, h := range o {
		hooks = append(hooks, &Hook{
			Path: h.Path, Args: DupStringSlice(h.Args), Env: DupStringSlice(h.Env),
			Timeout: Int(h.Timeout),
		})
	}
	return hooks
}

// ToOCI converts the hook into a spec hook; args and env are copied, an
// unset timeout is nil. A nil hook gives the zero spec hook.
func (h *Hook) ToOCI() rspec.Hook {
	return rspec.Hook{
		Path: h.GetPath(), Args: DupStringSlice(h.GetArgs()), Env: DupStringSlice(h.GetEnv()),
		Timeout: h.GetTimeout().Get(),
	}
}

// Append adds h's hooks after hooks' own, kind by kind, and returns hooks.
// A nil h changes nothing; on a nil hooks, Append returns h.
func (hooks *Hooks) Append(h *Hooks) *Hooks {
	if h == nil {
		return hooks
	}
	if hooks == nil {
		return h
	}
	hooks.Prestart = append(hooks.Prestart, h.Prestart...)
	hooks.CreateRuntime = append(hooks.CreateRuntime, h.CreateRuntime...)
	hooks.CreateContainer = append(hooks.CreateContainer, h.CreateContainer...)
	hooks.StartContainer = append(hooks.StartContainer, h.StartContainer...)
	hooks.Poststart = append(hooks.Poststart, h.Poststart...)
	hooks.Poststop = append(hooks.Poststop, h.Poststop...)
	return hooks
}

// Hooks returns hooks if it has at least one hook, else nil: a way to drop
// an empty Hooks before sending it.
func (hooks *Hooks) Hooks() *Hooks {
	if hooks == nil {
		return nil
	}
	for _, kind := range [][]*Hook{
		hooks.Prestart, hooks.CreateRuntime, hooks.CreateContainer,
		hooks.StartContainer, hooks.Poststart, hooks.Poststop,
	} {
		if len(kind) > 0 {
			return hooks
		}
	}
	return nil
}
