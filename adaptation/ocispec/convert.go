package ocispec

import (
	"maps"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// ToOCIResources converts NRI resources to spec resources, leaving unset what
// NRI leaves unset. It does not check values (ApplyResources does). Block
// I/O and RDT classes have no spec field and are left out.
func ToOCIResources(r *api.LinuxResources) *rspec.LinuxResources {
	if r == nil {
		return nil
	}
	o := &rspec.LinuxResources{Unified: maps.Clone(r.Unified)}
	if m := r.Memory; m != nil {
		o.Memory = &rspec.LinuxMemory{
			Limit:            value(m.Limit),
			Reservation:      value(m.Reservation),
			Swap:             value(m.Swap),
			Kernel:           value(m.Kernel),
			KernelTCP:        value(m.KernelTcp),
			Swappiness:       value(m.Swappiness),
			DisableOOMKiller: value(m.DisableOomKiller),
			UseHierarchy:     value(m.UseHierarchy),
		}
	}
	if c := r.Cpu; c != nil {
		o.CPU = &rspec.LinuxCPU{
			Shares:          value(c.Shares),
			Quota:           value(c.Quota),
			Period:          value(c.Period),
			RealtimeRuntime: value(c.RealtimeRuntime),
			RealtimePeriod:  value(c.RealtimePeriod),
			Cpus:            c.Cpus,
			Mems:            c.Mems,
		}
	}
	if r.Pids != nil {
		o.Pids = &rspec.LinuxPids{Limit: ptr(r.Pids.Limit)}
	}
	for _, h := range r.HugepageLimits {
		o.HugepageLimits = append(o.HugepageLimits, rspec.LinuxHugepageLimit{Pagesize: h.GetPageSize(), Limit: h.GetLimit()})
	}
	for _, d := range r.Devices {
		o.Devices = append(o.Devices, deviceRuleToOCI(d))
	}
	return o
}

// FromOCIResources converts spec resources to NRI resources. What NRI has no
// field for (block I/O and network settings, CPU burst and idle, RDMA) is
// left out.
func FromOCIResources(r *rspec.LinuxResources) *api.LinuxResources {
	if r == nil {
		return nil
	}
	o := &api.LinuxResources{Unified: maps.Clone(r.Unified)}
	if m := r.Memory; m != nil {
		o.Memory = &api.LinuxMemory{
			Limit:            optInt64(m.Limit),
			Reservation:      optInt64(m.Reservation),
			Swap:             optInt64(m.Swap),
			Kernel:           optInt64(m.Kernel),
			KernelTcp:        optInt64(m.KernelTCP),
			Swappiness:       optUInt64(m.Swappiness),
			DisableOomKiller: optBool(m.DisableOOMKiller),
			UseHierarchy:     optBool(m.UseHierarchy),
		}
	}
	if c := r.CPU; c != nil {
		o.Cpu = &api.LinuxCPU{
			Shares:          optUInt64(c.Shares),
			Quota:           optInt64(c.Quota),
			Period:          optUInt64(c.Period),
			RealtimeRuntime: optInt64(c.RealtimeRuntime),
			RealtimePeriod:  optUInt64(c.RealtimePeriod),
			Cpus:            c.Cpus,
			Mems:            c.Mems,
		}
	}
	if r.Pids != nil && r.Pids.Limit != nil {
		o.Pids = &api.LinuxPids{Limit: *r.Pids.Limit}
	}
	for _, h := range r.HugepageLimits {
		o.HugepageLimits = append(o.HugepageLimits, &api.HugepageLimit{PageSize: h.Pagesize, Limit: h.Limit})
	}
	for _, d := range r.Devices {
		o.Devices = append(o.Devices, &api.LinuxDeviceCgroup{
			Allow: d.Allow, Type: d.Type, Access: d.Access,
			Major: optInt64(d.Major), Minor: optInt64(d.Minor),
		})
	}
	return o
}

// optional is an NRI wrapper message: a pointer whose nil means unset.
type optional[T any] interface {
	comparable
	GetValue() T
}

// value unwraps an NRI optional value into a spec pointer.
func value[T any, O optional[T]](o O) *T {
	var unset O
	if o == unset {
		return nil
	}
	return ptr(o.GetValue())
}

func optInt64(v *int64) *api.OptionalInt64 {
	if v == nil {
		return nil
	}
	return &api.OptionalInt64{Value: *v}
}

func optUInt64(v *uint64) *api.OptionalUInt64 {
	if v == nil {
		return nil
	}
	return &api.OptionalUInt64{Value: *v}
}

func optBool(v *bool) *api.OptionalBool {
	if v == nil {
		return nil
	}
	return &api.OptionalBool{Value: *v}
}
