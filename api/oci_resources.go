// SPDX-License-Identifier: Apache-2.0

package api

import (
	rspec "github.com/opencontainers/runtime-spec/specs-go"
)

// UnlimitedPidsLimit is the pids limit that ToOCI leaves unset: no limit.
const UnlimitedPidsLimit = -1

// FromOCILinuxResources converts spec resources, in the reference's shape:
//
//   - nil gives nil; anything else a non-nil LinuxResources.
//   - Memory and Cpu are set only when the spec has them; each spec pointer
//     becomes an optional (nil stays unset).
//   - Pids is set when the spec has a pids section; a nil or zero spec limit
//     becomes Limit 0.
//   - Unified is nil when the spec's is empty; hugepage and device rules
//     are copied in order.
//   - Block I/O, network, RDMA, CPU burst and idle have no NRI field and are
//     left out.
//
// The annotations argument is ignored; it is there so that a port from the
// reference compiles unchanged.
func FromOCILinuxResources(o *rspec.LinuxResources, _ map[string]string) *LinuxResources {
	if o == nil {
		return nil
	}
	r := &LinuxResources{
		Memory:         memoryFromOCI(o.Memory),
		Cpu:            cpuFromOCI(o.CPU),
		HugepageLimits: hugepageLimitsFromOCI(o.HugepageLimits),
		Devices:        deviceRulesFromOCI(o.Devices),
		Pids:           pidsFromOCI(o.Pids),
	}
	if len(o.Unified) != 0 {
		r.Unified = DupStringMap(o.Unified)
	}
	return r
}

func memoryFromOCI(m *rspec.LinuxMemory) *LinuxMemory {
	if m == nil {
		return nil
	}
	return &LinuxMemory{
		Limit:       Int64(m.Limit),
		Reservation: Int64(m.Reservation),
		Swap:        Int64(m.Swap),
		//lint:ignore SA1019 deprecated in the spec, still carried by NRI
		Kernel:           Int64(m.Kernel),
		KernelTcp:        Int64(m.KernelTCP),
		Swappiness:       UInt64(m.Swappiness),
		DisableOomKiller: Bool(m.DisableOOMKiller),
		UseHierarchy:     Bool(m.UseHierarchy),
	}
}

func cpuFromOCI(c *rspec.LinuxCPU) *LinuxCPU {
	if c == nil {
		return nil
	}
	return &LinuxCPU{
		Shares:          UInt64(c.Shares),
		Quota:           Int64(c.Quota),
		Period:          UInt64(c.Period),
		RealtimeRuntime: Int64(c.RealtimeRuntime),
		RealtimePeriod:  UInt64(c.RealtimePeriod),
		Cpus:            c.Cpus,
		Mems:            c.Mems,
	}
}

func hugepageLimitsFromOCI(in []rspec.LinuxHugepageLimit) []*HugepageLimit {
	var out []*HugepageLimit
	for _, h := range in {
		out = append(out, &HugepageLimit{PageSize: h.Pagesize, Limit: h.Limit})
	}
	return out
}

func deviceRulesFromOCI(in []rspec.LinuxDeviceCgroup) []*LinuxDeviceCgroup {
	var out []*LinuxDeviceCgroup
	for _, d := range in {
		out = append(out, &LinuxDeviceCgroup{
			Allow: d.Allow, Type: d.Type, Access: d.Access,
			Major: Int64(d.Major), Minor: Int64(d.Minor),
		})
	}
	return out
}

func pidsFromOCI(p *rspec.LinuxPids) *LinuxPids {
	if p == nil {
		return nil
	}
	l := &LinuxPids{}
	if p.Limit != nil {
		l.Limit = *p.Limit
	}
	return l
}

// ToOCI converts the resources into spec resources, in the reference's
// shape, which runtimes rely on:
//
//   - nil gives nil.
//   - CPU and Memory are ALWAYS non-nil (empty when r sets nothing there),
//     so a runtime may dereference them; their unset optionals are nil
//     pointers.
//   - Pids is set when r has a pids section; its limit is carried unless it
//     is UnlimitedPidsLimit (-1) or below, which leaves the limit nil. A
//     limit of 0 is carried as 0.
//   - Unified is nil when r's is empty; hugepage limits and device rules
//     are copied in order (nil when there are none).
//   - BlockioClass and RdtClass have no spec field and are left out.
//
// adaptation/ocispec.ToOCIResources is the sparse form of the same
// conversion (sections r leaves unset stay nil), for overlaying onto a spec.
func (r *LinuxResources) ToOCI() *rspec.LinuxResources {
	if r == nil {
		return nil
	}
	o := &rspec.LinuxResources{
		Memory:         r.Memory.toOCI(),
		CPU:            r.Cpu.toOCI(),
		HugepageLimits: hugepageLimitsToOCI(r.HugepageLimits),
		Devices:        deviceRulesToOCI(r.Devices),
		Pids:           r.Pids.toOCI(),
	}
	if len(r.Unified) != 0 {
		o.Unified = DupStringMap(r.Unified)
	}
	return o
}

// toOCI gives an empty section for a nil m.
func (m *LinuxMemory) toOCI() *rspec.LinuxMemory {
	return &rspec.LinuxMemory{
		Limit:       m.GetLimit().Get(),
		Reservation: m.GetReservation().Get(),
		Swap:        m.GetSwap().Get(),
		//lint:ignore SA1019 deprecated in the spec, still carried by NRI
		Kernel:           m.GetKernel().Get(),
		KernelTCP:        m.GetKernelTcp().Get(),
		Swappiness:       m.GetSwappiness().Get(),
		DisableOOMKiller: m.GetDisableOomKiller().Get(),
		UseHierarchy:     m.GetUseHierarchy().Get(),
	}
}

// toOCI gives an empty section for a nil c.
func (c *LinuxCPU) toOCI() *rspec.LinuxCPU {
	return &rspec.LinuxCPU{
		Shares:          c.GetShares().Get(),
		Quota:           c.GetQuota().Get(),
		Period:          c.GetPeriod().Get(),
		RealtimeRuntime: c.GetRealtimeRuntime().Get(),
		RealtimePeriod:  c.GetRealtimePeriod().Get(),
		Cpus:            c.GetCpus(),
		Mems:            c.GetMems(),
	}
}

func (p *LinuxPids) toOCI() *rspec.LinuxPids {
	if p == nil {
		return nil
	}
	o := &rspec.LinuxPids{}
	if p.Limit > UnlimitedPidsLimit {
		limit := p.Limit
		o.Limit = &limit
	}
	return o
}

func hugepageLimitsToOCI(in []*HugepageLimit) []rspec.LinuxHugepageLimit {
	var out []rspec.LinuxHugepageLimit
	for _, h := range in {
		out = append(out, rspec.LinuxHugepageLimit{Pagesize: h.GetPageSize(), Limit: h.GetLimit()})
	}
	return out
}

func deviceRulesToOCI(in []*LinuxDeviceCgroup) []rspec.LinuxDeviceCgroup {
	var out []rspec.LinuxDeviceCgroup
	for _, d := range in {
		out = append(out, rspec.LinuxDeviceCgroup{
			Allow: d.GetAllow(), Type: d.GetType(), Access: d.GetAccess(),
			Major: d.GetMajor().Get(), Minor: d.GetMinor().Get(),
		})
	}
	return out
}

// Copy returns a deep copy of the resources; nil gives nil.
func (r *LinuxResources) Copy() *LinuxResources {
	if r == nil {
		return nil
	}
	return cloneMessage(r)
}

// Copy returns a deep copy of the RDT settings; nil gives nil.
func (r *LinuxRdt) Copy() *LinuxRdt {
	if r == nil {
		return nil
	}
	return cloneMessage(r)
}
