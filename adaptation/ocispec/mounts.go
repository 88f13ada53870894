// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"cmp"
	"path"
	"slices"
	"strings"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// planMounts converts mounts; "-D" removes the mounts at D. Destinations are
// compared cleaned, so "/data/" and "/data" are the same mount point.
func planMounts(in []*api.Mount) (listEdit[rspec.Mount], error) {
	e, err := planList("mount", in, (*api.Mount).GetDestination, toOCIMount)
	for i, d := range e.del {
		e.del[i] = path.Clean(d)
	}
	return e, err
}

// toOCIMount rejects relative destinations, which runtimes refuse anyway,
// and whose depth (see sortMounts) would be meaningless.
func toOCIMount(m *api.Mount) (rspec.Mount, error) {
	if !path.IsAbs(m.Destination) {
		return rspec.Mount{}, invalid("destination is not absolute")
	}
	return rspec.Mount{
		Destination: m.Destination,
		Type:        m.Type,
		Source:      m.Source,
		Options:     slices.Clone(m.Options),
	}, nil
}

// applyMounts fails only when an added mount's propagation cannot work on
// this host (see applyPropagation).
func applyMounts(spec *rspec.Spec, e listEdit[rspec.Mount]) error {
	if err := applyPropagation(spec, e.set); err != nil {
		return err
	}
	spec.Mounts = e.apply(spec.Mounts, mountKey)
	if len(e.set) > 0 {
		sortMounts(spec.Mounts)
	}
	return nil
}

func mountKey(m rspec.Mount) string { return path.Clean(m.Destination) }

// sortMounts orders mounts parents first, keeping the order of mounts at the
// same depth: an added mount must not shadow the mounts below it, and the
// runtime mounts in list order. Containerd sorts its CRI mounts the same way.
func sortMounts(ms []rspec.Mount) {
	slices.SortStableFunc(ms, func(a, b rspec.Mount) int {
		return cmp.Compare(mountDepth(a), mountDepth(b))
	})
}

func mountDepth(m rspec.Mount) int {
	p := path.Clean(m.Destination)
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}
