// SPDX-License-Identifier: Apache-2.0

package api

import (
	rspec "github.com/opencontainers/runtime-spec/specs-go"
)

// FromOCILinuxSeccomp converts a spec seccomp policy. Nil gives nil (the
// reference crashes on nil). Architectures, flags and syscalls are non-nil,
// possibly empty, lists; errno values that are nil stay unset.
func FromOCILinuxSeccomp(o *rspec.LinuxSeccomp) *LinuxSeccomp {
	if o == nil {
		return nil
	}
	s := &LinuxSeccomp{
		DefaultAction:    string(o.DefaultAction),
		DefaultErrno:     errnoFromOCI(o.DefaultErrnoRet),
		Architectures:    make([]string, 0, len(o.Architectures)),
		Flags:            make([]string, 0, len(o.Flags)),
		ListenerPath:     o.ListenerPath,
		ListenerMetadata: o.ListenerMetadata,
		Syscalls:         FromOCILinuxSyscalls(o.Syscalls),
	}
	for _, a := range o.Architectures {
		s.Architectures = append(s.Architectures, string(a))
	}
	for _, f := range o.Flags {
		s.Flags = append(s.Flags, string(f))
	}
	return s
}

// FromOCILinuxSyscalls converts spec syscall rules, in order, into a
// non-nil list; names are copied.
func FromOCILinuxSyscalls(o []rspec.LinuxSyscall) []*LinuxSyscall {
	out := make([]*LinuxSyscall, 0, len(o))
	for _, sc := range o {
		out = append(out, &LinuxSyscall{
			Names: DupStringSlice(sc.Names), Action: string(sc.Action),
			ErrnoRet: errnoFromOCI(sc.ErrnoRet), Args: FromOCILinuxSeccompArgs(sc.Args),
		})
	}
	return out
}

// FromOCILinuxSeccompArgs converts spec syscall argument checks, in order,
// into a non-nil list.
func FromOCILinuxSeccompArgs(o []rspec.LinuxSeccompArg) []*LinuxSeccompArg {
	out := make([]*LinuxSeccompArg, 0, len(o))
	for _, a := range o {
		out = append(out, &LinuxSeccompArg{
			Index: uint32(a.Index), Value: a.Value, ValueTwo: a.ValueTwo, Op: string(a.Op),
		})
	}
	return out
}

// ToOCILinuxSyscalls converts syscall rules, in order, into a non-nil
// (possibly empty) spec list; names are copied, an unset errno is nil.
func ToOCILinuxSyscalls(o []*LinuxSyscall) []rspec.LinuxSyscall {
	out := make([]rspec.LinuxSyscall, 0, len(o))
	for _, sc := range o {
		out = append(out, rspec.LinuxSyscall{
			Names: DupStringSlice(sc.GetNames()), Action: rspec.LinuxSeccompAction(sc.GetAction()),
			ErrnoRet: errnoToOCI(sc.GetErrnoRet()), Args: ToOCILinuxSeccompArgs(sc.GetArgs()),
		})
	}
	return out
}

// ToOCILinuxSeccompArgs converts syscall argument checks, in order, into a
// non-nil (possibly empty) spec list.
func ToOCILinuxSeccompArgs(o []*LinuxSeccompArg) []rspec.LinuxSeccompArg {
	out := make([]rspec.LinuxSeccompArg, 0, len(o))
	for _, a := range o {
		out = append(out, rspec.LinuxSeccompArg{
			Index: uint(a.GetIndex()), Value: a.GetValue(), ValueTwo: a.GetValueTwo(),
			Op: rspec.LinuxSeccompOperator(a.GetOp()),
		})
	}
	return out
}

func errnoFromOCI(v *uint) *OptionalUInt32 {
	if v == nil {
		return nil
	}
	return &OptionalUInt32{Value: uint32(*v)}
}

func errnoToOCI(o *OptionalUInt32) *uint {
	if o == nil {
		return nil
	}
	v := uint(o.Value)
	return &v
}
