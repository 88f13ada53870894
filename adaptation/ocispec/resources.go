// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/limits"
)

// resourcesPlan is checked resources: the spec values to set (nil fields
// change nothing) and the classes for the Applier's resolvers.
type resourcesPlan struct {
	res          *rspec.LinuxResources
	blockIOClass *string
	rdtClass     *string
}

func planResources(r *api.LinuxResources) (*resourcesPlan, error) {
	if r == nil {
		return nil, nil
	}
	if err := checkResources(r); err != nil {
		return nil, err
	}
	p := &resourcesPlan{res: ToOCIResources(r)}
	if c := r.BlockioClass; c != nil {
		p.blockIOClass = ptr(c.Value)
	}
	if c := r.RdtClass; c != nil {
		p.rdtClass = ptr(c.Value)
	}
	return p, nil
}

// checkResources rejects what no cgroup driver accepts.
func checkResources(r *api.LinuxResources) error {
	if err := outOfRange(limits.Resources(r)); err != nil {
		return err
	}
	for _, h := range r.HugepageLimits {
		if h.GetPageSize() == "" {
			return invalid("hugepage limit without page size")
		}
	}
	for k := range r.Unified {
		if k == "" {
			return invalid("unified cgroup entry without name")
		}
	}
	for _, d := range r.Devices {
		if err := checkDeviceRule(d); err != nil {
			return err
		}
	}
	return nil
}

// applyValues sets the resource values in spec.Linux, which must exist. A
// resources section it creates but leaves empty is dropped.
func (p *resourcesPlan) applyValues(l *rspec.Linux) {
	created := l.Resources == nil
	if created {
		l.Resources = &rspec.LinuxResources{}
	}
	overlayResources(l.Resources, p.res)
	prune(&l.Resources, created)
}

// overlayResources sets in dst what src sets: pointers that are not nil,
// CPU and memory node sets that are not empty, hugepage limits by page size,
// unified entries by key. Device rules are appended: they are ordered, and a
// later rule overrides an earlier one.
func overlayResources(dst, src *rspec.LinuxResources) {
	if src.Memory != nil {
		created := dst.Memory == nil
		dst.Memory = overlayMemory(dst.Memory, src.Memory)
		prune(&dst.Memory, created)
	}
	if src.CPU != nil {
		created := dst.CPU == nil
		dst.CPU = overlayCPU(dst.CPU, src.CPU)
		prune(&dst.CPU, created)
	}
	if src.Pids != nil {
		dst.Pids = src.Pids
	}
	hp := listEdit[rspec.LinuxHugepageLimit]{set: src.HugepageLimits}
	dst.HugepageLimits = hp.apply(dst.HugepageLimits, func(h rspec.LinuxHugepageLimit) string { return h.Pagesize })
	mapEdit[string]{set: src.Unified}.apply(&dst.Unified)
	dst.Devices = append(dst.Devices, src.Devices...)
}

func overlayMemory(dst, src *rspec.LinuxMemory) *rspec.LinuxMemory {
	if dst == nil {
		dst = &rspec.LinuxMemory{}
	}
	set(&dst.Limit, src.Limit)
	set(&dst.Reservation, src.Reservation)
	set(&dst.Swap, src.Swap)
	set(&dst.Kernel, src.Kernel)
	set(&dst.KernelTCP, src.KernelTCP)
	set(&dst.Swappiness, src.Swappiness)
	set(&dst.DisableOOMKiller, src.DisableOOMKiller)
	set(&dst.UseHierarchy, src.UseHierarchy)
	return dst
}

func overlayCPU(dst, src *rspec.LinuxCPU) *rspec.LinuxCPU {
	if dst == nil {
		dst = &rspec.LinuxCPU{}
	}
	set(&dst.Shares, src.Shares)
	set(&dst.Quota, src.Quota)
	set(&dst.Period, src.Period)
	set(&dst.RealtimeRuntime, src.RealtimeRuntime)
	set(&dst.RealtimePeriod, src.RealtimePeriod)
	if src.Cpus != "" {
		dst.Cpus = src.Cpus
	}
	if src.Mems != "" {
		dst.Mems = src.Mems
	}
	return dst
}

func set[T any](dst **T, src *T) {
	if src != nil {
		*dst = src
	}
}
