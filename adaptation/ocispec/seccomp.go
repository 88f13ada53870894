// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// The actions and operators the spec defines; libseccomp knows no others.
var (
	seccompActions = map[rspec.LinuxSeccompAction]bool{
		rspec.ActKill: true, rspec.ActKillProcess: true, rspec.ActKillThread: true,
		rspec.ActTrap: true, rspec.ActErrno: true, rspec.ActTrace: true,
		rspec.ActAllow: true, rspec.ActLog: true, rspec.ActNotify: true,
	}
	seccompOps = map[rspec.LinuxSeccompOperator]bool{
		rspec.OpNotEqual: true, rspec.OpLessThan: true, rspec.OpLessEqual: true,
		rspec.OpEqualTo: true, rspec.OpGreaterEqual: true, rspec.OpGreaterThan: true,
		rspec.OpMaskedEqual: true,
	}
)

// maxSyscallArgs is the number of syscall arguments; a filter on a later
// index can never match.
const maxSyscallArgs = 6

// planSeccomp converts a seccomp policy, which replaces the spec's whole.
// Architectures and flags are passed on unchecked: their lists grow with
// the kernel and libseccomp, and the runtime checks them.
func planSeccomp(s *api.LinuxSeccomp) (replace[*rspec.LinuxSeccomp], error) {
	if s == nil {
		return replace[*rspec.LinuxSeccomp]{}, nil
	}
	if err := checkAction(s.DefaultAction); err != nil {
		return replace[*rspec.LinuxSeccomp]{}, within("seccomp", "default action", err)
	}
	o := &rspec.LinuxSeccomp{
		DefaultAction:    rspec.LinuxSeccompAction(s.DefaultAction),
		DefaultErrnoRet:  errno(s.DefaultErrno),
		ListenerPath:     s.ListenerPath,
		ListenerMetadata: s.ListenerMetadata,
	}
	for _, a := range s.Architectures {
		o.Architectures = append(o.Architectures, rspec.Arch(a))
	}
	for _, f := range s.Flags {
		o.Flags = append(o.Flags, rspec.LinuxSeccompFlag(f))
	}
	for _, sc := range s.Syscalls {
		c, err := toOCISyscall(sc)
		if err != nil {
			return replace[*rspec.LinuxSeccomp]{}, within("seccomp", "syscall", err)
		}
		o.Syscalls = append(o.Syscalls, c)
	}
	return replaceWith(o), nil
}

func toOCISyscall(s *api.LinuxSyscall) (rspec.LinuxSyscall, error) {
	if len(s.GetNames()) == 0 {
		return rspec.LinuxSyscall{}, invalid("rule names no syscall")
	}
	if err := checkAction(s.Action); err != nil {
		return rspec.LinuxSyscall{}, err
	}
	o := rspec.LinuxSyscall{
		Names:    append([]string(nil), s.Names...),
		Action:   rspec.LinuxSeccompAction(s.Action),
		ErrnoRet: errno(s.ErrnoRet),
	}
	for _, a := range s.Args {
		if a == nil {
			return rspec.LinuxSyscall{}, invalid("nil syscall argument filter")
		}
		if a.Index >= maxSyscallArgs {
			return rspec.LinuxSyscall{}, invalid("syscall argument index %d not below %d", a.Index, maxSyscallArgs)
		}
		if !seccompOps[rspec.LinuxSeccompOperator(a.Op)] {
			return rspec.LinuxSyscall{}, invalid("unknown seccomp operator %q", a.Op)
		}
		o.Args = append(o.Args, rspec.LinuxSeccompArg{
			Index: uint(a.Index), Value: a.Value, ValueTwo: a.ValueTwo, Op: rspec.LinuxSeccompOperator(a.Op),
		})
	}
	return o, nil
}

func checkAction(a string) error {
	if !seccompActions[rspec.LinuxSeccompAction(a)] {
		return invalid("unknown seccomp action %q", a)
	}
	return nil
}

func errno(v *api.OptionalUInt32) *uint {
	if v == nil {
		return nil
	}
	return ptr(uint(v.Value))
}
