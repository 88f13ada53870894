// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	xgen "github.com/containerd/nri/pkg/runtime-tools/generate"
	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/adaptation/ocispec"
)

// node is what the runtime's hooks know of the node, as CRI-O's do.
type node struct {
	noSwap    bool   // the memory cgroup has no swap accounting
	noHugetlb bool   // no hugetlb controller
	failAt    string // the hook that refuses: filter, cdi, check, blockio or rdt
	noHooks   bool   // a runtime that plugs in none: no options, the zero Applier
}

// minMemory is the runtime's smallest memory limit (CRI-O's check).
const minMemory = 12 << 20

// disallowed is an annotation prefix the runtime does not let plugins set.
const disallowed = "io.kubernetes.cri-o."

var errRefused = errors.New("refused by the runtime")

// hooks are one set of runtime hooks that log their calls. The same
// functions are given to both sides.
type hooks struct {
	node  node
	calls []string
}

func (h *hooks) log(format string, args ...any) {
	h.calls = append(h.calls, fmt.Sprintf(format, args...))
}

func (h *hooks) fail(name string) error {
	if h.node.failAt == name {
		return errRefused
	}
	return nil
}

func (h *hooks) filter(in map[string]string) (map[string]string, error) {
	h.log("filter %v", slices.Sorted(maps.Keys(in)))
	out := map[string]string{}
	for k, v := range in {
		if !strings.HasPrefix(strings.TrimPrefix(k, "-"), disallowed) {
			out[k] = v
		}
	}
	return out, h.fail("filter")
}

// injectCDI is a CDI registry with one device: a node, its cgroup rule, a
// mount and an env var, as a CDI spec's container edits add them.
func (h *hooks) injectCDI(s *rspec.Spec, names []string) error {
	h.log("cdi %q", names)
	if err := h.fail("cdi"); err != nil {
		return err
	}
	for _, n := range names {
		if n != "vendor.com/gpu=0" {
			return fmt.Errorf("unresolvable CDI device %q", n)
		}
		s.Linux.Devices = append(s.Linux.Devices, rspec.LinuxDevice{Path: "/dev/gpu0", Type: "c", Major: 195, Minor: 0})
		s.Linux.Resources.Devices = append(s.Linux.Resources.Devices,
			rspec.LinuxDeviceCgroup{Allow: true, Type: "c", Major: ptr[int64](195), Minor: ptr[int64](0), Access: "rw"})
		s.Mounts = append(s.Mounts, rspec.Mount{Destination: "/usr/lib/gpu", Source: "/opt/gpu/lib", Type: "bind", Options: []string{"ro", "bind"}})
		s.Process.Env = append(s.Process.Env, "GPU_VISIBLE=0")
	}
	return nil
}

// check is CRI-O's resource checker: the runtime's minimum memory, and no
// swap or hugepage limits the node cannot enforce.
func (h *hooks) check(r *rspec.LinuxResources) error {
	if r == nil {
		h.log("check nil")
		return h.fail("check")
	}
	h.log("check %s", showResources(r))
	if m := r.Memory; m != nil {
		if m.Limit != nil && *m.Limit > 0 && *m.Limit < minMemory {
			return fmt.Errorf("memory limit %d below the minimum %d", *m.Limit, minMemory)
		}
		if h.node.noSwap {
			m.Swap = nil
		}
	}
	if h.node.noHugetlb {
		r.HugepageLimits = nil
	}
	return h.fail("check")
}

func showResources(r *rspec.LinuxResources) string {
	var b strings.Builder
	if m := r.Memory; m != nil {
		fmt.Fprintf(&b, "limit=%s swap=%s ", showInt(m.Limit), showInt(m.Swap))
	}
	fmt.Fprintf(&b, "hugepages=%d devices=%d blockio=%v", len(r.HugepageLimits), len(r.Devices), r.BlockIO != nil)
	return b.String()
}

func showInt(p *int64) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

func (h *hooks) blockIO(class string) (*rspec.LinuxBlockIO, error) {
	h.log("blockio %q", class)
	if class != "slow" {
		return nil, fmt.Errorf("no block I/O class %q", class)
	}
	return &rspec.LinuxBlockIO{Weight: ptr[uint16](10)}, h.fail("blockio")
}

func (h *hooks) rdt(class string) (*rspec.LinuxIntelRdt, error) {
	h.log("rdt %q", class)
	return &rspec.LinuxIntelRdt{ClosID: "crio-" + class, Schemata: []string{"L3:0=ff"}}, h.fail("rdt")
}

// reference returns the reference generator's options for these hooks.
func (h *hooks) reference() []xgen.GeneratorOption {
	if h.node.noHooks {
		return nil
	}
	return []xgen.GeneratorOption{
		xgen.WithAnnotationFilter(h.filter),
		xgen.WithCDIDeviceInjector(h.injectCDI),
		xgen.WithResourceChecker(h.check),
		xgen.WithBlockIOResolver(h.blockIO),
		xgen.WithRdtResolver(h.rdt),
	}
}

// applier returns nrikit's Applier with the same hooks: the one-to-one
// mapping a port follows.
func (h *hooks) applier() ocispec.Applier {
	if h.node.noHooks {
		return ocispec.Applier{}
	}
	return ocispec.Applier{
		AnnotationFilter:  h.filter,
		CDIDeviceInjector: h.injectCDI,
		ResourceChecker:   h.check,
		BlockIOClass:      h.blockIO,
		RDTClass:          h.rdt,
	}
}

func ptr[T any](v T) *T { return &v }
