// SPDX-License-Identifier: Apache-2.0

package api

import (
	rspec "github.com/opencontainers/runtime-spec/specs-go"
)

// The NRI enums carry the spec's own names (IOPRIO_CLASS_RT, SCHED_FIFO,
// SCHED_FLAG_RECLAIM, MPOL_BIND, ...), so they convert by name.

// FromOCILinuxIOPriority converts a spec I/O priority; nil gives nil. A
// class NRI has no value for becomes IOPRIO_CLASS_NONE, as in the reference.
func FromOCILinuxIOPriority(o *rspec.LinuxIOPriority) *LinuxIOPriority {
	if o == nil {
		return nil
	}
	return &LinuxIOPriority{Class: FromOCIIOPriorityClass(o.Class), Priority: int32(o.Priority)}
}

// ToOCI converts the I/O priority; nil gives nil. Class NONE becomes the
// empty class.
func (p *LinuxIOPriority) ToOCI() *rspec.LinuxIOPriority {
	if p == nil {
		return nil
	}
	return &rspec.LinuxIOPriority{Class: p.Class.ToOCI(), Priority: int(p.Priority)}
}

// FromOCIIOPriorityClass converts a spec class by name; an unknown one
// (the empty class included) is IOPRIO_CLASS_NONE.
func FromOCIIOPriorityClass(o rspec.IOPriorityClass) IOPrioClass {
	return IOPrioClass(IOPrioClass_value[string(o)])
}

// ToOCI gives the spec class: "" for NONE and for values NRI does not know.
func (c IOPrioClass) ToOCI() rspec.IOPriorityClass {
	if c == IOPrioClass_IOPRIO_CLASS_NONE {
		return ""
	}
	return rspec.IOPriorityClass(IOPrioClass_name[int32(c)])
}

// FromOCILinuxScheduler converts a spec scheduler; nil gives nil. An unknown
// policy becomes SCHED_NONE, as in the reference; unknown flags are left
// out (the reference turns them into SCHED_FLAG_RESET_ON_FORK, flag 0).
func FromOCILinuxScheduler(o *rspec.Scheduler) *LinuxScheduler {
	if o == nil {
		return nil
	}
	return &LinuxScheduler{
		Policy: FromOCISchedulerPolicy(o.Policy), Nice: o.Nice, Priority: o.Priority,
		Flags:   FromOCILinuxSchedulerFlags(o.Flags),
		Runtime: o.Runtime, Deadline: o.Deadline, Period: o.Period,
	}
}

// ToOCI converts the scheduler; nil and policy SCHED_NONE give nil.
func (s *LinuxScheduler) ToOCI() *rspec.Scheduler {
	if s == nil || s.Policy == LinuxSchedulerPolicy_SCHED_NONE {
		return nil
	}
	return &rspec.Scheduler{
		Policy: s.Policy.ToOCI(), Nice: s.Nice, Priority: s.Priority,
		Flags:   ToOCILinuxSchedulerFlags(s.Flags),
		Runtime: s.Runtime, Deadline: s.Deadline, Period: s.Period,
	}
}

// FromOCISchedulerPolicy converts a spec policy by name; an unknown one
// (the empty policy included) is SCHED_NONE.
func FromOCISchedulerPolicy(o rspec.LinuxSchedulerPolicy) LinuxSchedulerPolicy {
	return LinuxSchedulerPolicy(LinuxSchedulerPolicy_value[string(o)])
}

// ToOCI gives the spec policy: "" for SCHED_NONE and for values NRI does
// not know.
func (p LinuxSchedulerPolicy) ToOCI() rspec.LinuxSchedulerPolicy {
	if p == LinuxSchedulerPolicy_SCHED_NONE {
		return ""
	}
	return rspec.LinuxSchedulerPolicy(LinuxSchedulerPolicy_name[int32(p)])
}

// FromOCILinuxSchedulerFlags converts spec flags by name, leaving out those
// NRI does not know. Nil gives nil.
func FromOCILinuxSchedulerFlags(o []rspec.LinuxSchedulerFlag) []LinuxSchedulerFlag {
	if o == nil {
		return nil
	}
	out := make([]LinuxSchedulerFlag, 0, len(o))
	for _, f := range o {
		if v, ok := LinuxSchedulerFlag_value[string(f)]; ok {
			out = append(out, LinuxSchedulerFlag(v))
		}
	}
	return out
}

// ToOCILinuxSchedulerFlags converts flags to their spec names (""
// for values NRI does not know). Nil gives nil.
func ToOCILinuxSchedulerFlags(f []LinuxSchedulerFlag) []rspec.LinuxSchedulerFlag {
	if f == nil {
		return nil
	}
	out := make([]rspec.LinuxSchedulerFlag, 0, len(f))
	for _, flag := range f {
		out = append(out, rspec.LinuxSchedulerFlag(LinuxSchedulerFlag_name[int32(flag)]))
	}
	return out
}

// FromOCILinuxMemoryPolicy converts a spec memory policy; nil gives nil. An
// unknown mode becomes MPOL_DEFAULT, as in the reference.
func FromOCILinuxMemoryPolicy(o *rspec.LinuxMemoryPolicy) *LinuxMemoryPolicy {
	if o == nil {
		return nil
	}
	return &LinuxMemoryPolicy{
		Mode: FromOCIMemoryPolicyMode(o.Mode), Nodes: o.Nodes,
		Flags: FromOCIMemoryPolicyFlags(o.Flags...),
	}
}

// ToOCI converts the memory policy; nil gives nil.
func (p *LinuxMemoryPolicy) ToOCI() *rspec.LinuxMemoryPolicy {
	if p == nil {
		return nil
	}
	return &rspec.LinuxMemoryPolicy{
		Mode: p.Mode.ToOCI(), Nodes: p.Nodes, Flags: ToOCIMemoryPolicyFlags(p.Flags...),
	}
}

// FromOCIMemoryPolicyMode converts a spec mode by name; an unknown one is
// MPOL_DEFAULT.
func FromOCIMemoryPolicyMode(mode rspec.MemoryPolicyModeType) MpolMode {
	return MpolMode(MpolMode_value[string(mode)])
}

// ToOCI gives the spec mode ("" for values NRI does not know).
func (m MpolMode) ToOCI() rspec.MemoryPolicyModeType {
	return rspec.MemoryPolicyModeType(MpolMode_name[int32(m)])
}

// FromOCIMemoryPolicyFlags converts spec flags by name, leaving out those
// NRI does not know. Nil gives nil.
func FromOCIMemoryPolicyFlags(flags ...rspec.MemoryPolicyFlagType) []MpolFlag {
	if flags == nil {
		return nil
	}
	out := make([]MpolFlag, 0, len(flags))
	for _, f := range flags {
		if v, ok := MpolFlag_value[string(f)]; ok {
			out = append(out, MpolFlag(v))
		}
	}
	return out
}

// ToOCIMemoryPolicyFlags converts flags to their spec names ("" for values
// NRI does not know). Nil gives nil.
func ToOCIMemoryPolicyFlags(flags ...MpolFlag) []rspec.MemoryPolicyFlagType {
	if flags == nil {
		return nil
	}
	out := make([]rspec.MemoryPolicyFlagType, 0, len(flags))
	for _, f := range flags {
		out = append(out, rspec.MemoryPolicyFlagType(MpolFlag_name[int32(f)]))
	}
	return out
}
