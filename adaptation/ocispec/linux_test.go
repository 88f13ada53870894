// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"os"
	"testing"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

func TestDevices(t *testing.T) {
	get := func(s *rspec.Spec) any { return []any{s.Linux.Devices, s.Linux.Resources.Devices} }
	denyAll := rspec.LinuxDeviceCgroup{Allow: false, Access: "rwm"}
	allow := func(typ string, major, minor int64) rspec.LinuxDeviceCgroup {
		return rspec.LinuxDeviceCgroup{Allow: true, Type: typ, Major: ptr(major), Minor: ptr(minor), Access: "rwm"}
	}
	fuse := &api.LinuxDevice{
		Path: "/dev/fuse", Type: "c", Major: 10, Minor: 229,
		FileMode: &api.OptionalFileMode{Value: 0o666}, Uid: &api.OptionalUInt32{Value: 0}, Gid: &api.OptionalUInt32{Value: 5},
	}
	ociFuse := rspec.LinuxDevice{Path: "/dev/fuse", Type: "c", Major: 10, Minor: 229, FileMode: ptr(os.FileMode(0o666)), UID: ptr[uint32](0), GID: ptr[uint32](5)}
	withNull := func() *rspec.Spec {
		s := sampleSpec()
		s.Linux.Devices = []rspec.LinuxDevice{{Path: "/dev/null0", Type: "c", Major: 1, Minor: 3}, {Path: "/dev/fuse", Type: "c", Major: 1, Minor: 1}}
		s.Linux.Resources.Devices = append(s.Linux.Resources.Devices, allow("c", 1, 3))
		return s
	}
	runApplyCases(t, get, []applyCase{{
		name: "add with cgroup rule",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{Devices: []*api.LinuxDevice{fuse}}),
		want: []any{[]rspec.LinuxDevice{ociFuse}, []rspec.LinuxDeviceCgroup{denyAll, allow("c", 10, 229)}},
	}, {
		name:  "replace by path, keep an identical rule in force",
		start: withNull,
		adj:   linuxAdj(&api.LinuxContainerAdjustment{Devices: []*api.LinuxDevice{{Path: "/dev/null0", Type: "c", Major: 1, Minor: 3}, fuse}}),
		want: []any{
			[]rspec.LinuxDevice{{Path: "/dev/null0", Type: "c", Major: 1, Minor: 3}, ociFuse},
			[]rspec.LinuxDeviceCgroup{denyAll, allow("c", 1, 3), allow("c", 10, 229)},
		},
	}, {
		name:  "remove keeps the rules",
		start: withNull,
		adj:   linuxAdj(&api.LinuxContainerAdjustment{Devices: []*api.LinuxDevice{{Path: "-/dev/null0"}}}),
		want: []any{
			[]rspec.LinuxDevice{{Path: "/dev/fuse", Type: "c", Major: 1, Minor: 1}},
			[]rspec.LinuxDeviceCgroup{denyAll, allow("c", 1, 3)},
		},
	}, {
		name: "block, unbuffered and fifo",
		adj: linuxAdj(&api.LinuxContainerAdjustment{Devices: []*api.LinuxDevice{
			{Path: "/dev/sdz", Type: "b", Major: 8, Minor: 0},
			{Path: "/dev/u", Type: "u", Major: 4, Minor: 1},
			{Path: "/dev/fifo", Type: "p"},
		}}),
		want: []any{
			[]rspec.LinuxDevice{{Path: "/dev/sdz", Type: "b", Major: 8}, {Path: "/dev/u", Type: "u", Major: 4, Minor: 1}, {Path: "/dev/fifo", Type: "p"}},
			[]rspec.LinuxDeviceCgroup{denyAll, allow("b", 8, 0), allow("c", 4, 1)},
		},
	}, {
		name:  "nil linux",
		start: emptySpec,
		adj:   linuxAdj(&api.LinuxContainerAdjustment{Devices: []*api.LinuxDevice{fuse}}),
		want:  []any{[]rspec.LinuxDevice{ociFuse}, []rspec.LinuxDeviceCgroup{allow("c", 10, 229)}},
	}, {
		name:  "removal on nil linux changes nothing",
		start: emptySpec,
		adj:   &api.ContainerAdjustment{Linux: &api.LinuxContainerAdjustment{Devices: []*api.LinuxDevice{{Path: "-/dev/x"}}}},
		get:   func(s *rspec.Spec) any { return s.Linux },
		want:  (*rspec.Linux)(nil),
	}, {
		name: "bad type",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{Devices: []*api.LinuxDevice{{Path: "/dev/x", Type: "z"}}}),
		err:  `device "/dev/x": invalid adjustment: unknown device type "z"`,
	}, {
		name: "no type",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{Devices: []*api.LinuxDevice{{Path: "/dev/x"}}}),
		err:  `unknown device type ""`,
	}, {
		name: "negative number",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{Devices: []*api.LinuxDevice{{Path: "/dev/x", Type: "c", Major: -1}}}),
		err:  "negative device number",
	}, {
		name: "relative path",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{Devices: []*api.LinuxDevice{{Path: "dev/x", Type: "c"}}}),
		err:  "not absolute",
	}})
}

func TestNamespaces(t *testing.T) {
	get := func(s *rspec.Spec) any { return s.Linux.Namespaces }
	runApplyCases(t, get, []applyCase{{
		name: "replace in place and add",
		adj: linuxAdj(&api.LinuxContainerAdjustment{Namespaces: []*api.LinuxNamespace{
			{Type: "network", Path: "/var/run/netns/other"}, {Type: "cgroup"},
		}}),
		want: []rspec.LinuxNamespace{
			{Type: "pid"}, {Type: "ipc", Path: "/proc/42/ns/ipc"}, {Type: "uts", Path: "/proc/42/ns/uts"},
			{Type: "mount"}, {Type: "network", Path: "/var/run/netns/other"}, {Type: "cgroup"},
		},
	}, {
		name: "remove",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{Namespaces: []*api.LinuxNamespace{{Type: "-ipc"}, {Type: "-uts"}, {Type: "-time"}}}),
		want: []rspec.LinuxNamespace{{Type: "pid"}, {Type: "mount"}, {Type: "network", Path: "/var/run/netns/pod0"}},
	}, {
		name:  "nil linux",
		start: emptySpec,
		adj:   linuxAdj(&api.LinuxContainerAdjustment{Namespaces: []*api.LinuxNamespace{{Type: "user"}}}),
		want:  []rspec.LinuxNamespace{{Type: "user"}},
	}, {
		name: "unknown type",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{Namespaces: []*api.LinuxNamespace{{Type: "net"}}}),
		err:  `namespace "net": invalid adjustment: unknown namespace type`,
	}, {
		name: "unknown type removed",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{Namespaces: []*api.LinuxNamespace{{Type: "-net"}}}),
		err:  `unknown namespace type "net"`,
	}})
}

func TestSysctlAndNetDevices(t *testing.T) {
	get := func(s *rspec.Spec) any { return []any{s.Linux.Sysctl, s.Linux.NetDevices} }
	runApplyCases(t, get, []applyCase{{
		name: "set",
		adj: linuxAdj(&api.LinuxContainerAdjustment{
			Sysctl:     map[string]string{"net.core.somaxconn": "1024"},
			NetDevices: map[string]*api.LinuxNetDevice{"eth1": {Name: "net1"}, "eth2": {}},
		}),
		want: []any{
			map[string]string{"net.ipv4.ip_unprivileged_port_start": "0", "net.core.somaxconn": "1024"},
			map[string]rspec.LinuxNetDevice{"eth1": {Name: "net1"}, "eth2": {}},
		},
	}, {
		name: "remove, with the null value a merged removal carries",
		start: func() *rspec.Spec {
			s := sampleSpec()
			s.Linux.NetDevices = map[string]rspec.LinuxNetDevice{"eth1": {Name: "net1"}, "eth2": {}}
			return s
		},
		adj: linuxAdj(&api.LinuxContainerAdjustment{
			Sysctl:     map[string]string{"-net.ipv4.ip_unprivileged_port_start": ""},
			NetDevices: map[string]*api.LinuxNetDevice{"-eth1": nil, "-eth9": {}},
		}),
		want: []any{map[string]string{}, map[string]rspec.LinuxNetDevice{"eth2": {}}},
	}, {
		name: "remove and set",
		adj: linuxAdj(&api.LinuxContainerAdjustment{
			Sysctl: map[string]string{"-net.ipv4.ip_unprivileged_port_start": "", "net.ipv4.ip_unprivileged_port_start": "80"},
		}),
		want: []any{map[string]string{"net.ipv4.ip_unprivileged_port_start": "80"}, map[string]rspec.LinuxNetDevice(nil)},
	}, {
		name:  "nil linux",
		start: emptySpec,
		adj: linuxAdj(&api.LinuxContainerAdjustment{
			Sysctl: map[string]string{"-a": "", "b": "1"}, NetDevices: map[string]*api.LinuxNetDevice{"-x": nil},
		}),
		want: []any{map[string]string{"b": "1"}, map[string]rspec.LinuxNetDevice(nil)},
	}, {
		name: "net device without value",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{NetDevices: map[string]*api.LinuxNetDevice{"eth1": nil}}),
		err:  `net device "eth1": invalid adjustment: net device has no value`,
	}, {
		name: "sysctl bare marker",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{Sysctl: map[string]string{"-": ""}}),
		err:  `sysctl key "-" names nothing`,
	}})
}

func TestSimpleLinuxFields(t *testing.T) {
	get := func(s *rspec.Spec) any { return []any{s.Linux.CgroupsPath, s.Linux.Seccomp, s.Linux.MemoryPolicy} }
	path := "kubepods-pod0.slice:cri-containerd:ctr0"
	runApplyCases(t, get, []applyCase{{
		name: "cgroups path",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{CgroupsPath: "/custom"}),
		want: []any{"/custom", (*rspec.LinuxSeccomp)(nil), (*rspec.LinuxMemoryPolicy)(nil)},
	}, {
		name: "empty cgroups path keeps",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{}),
		want: []any{path, (*rspec.LinuxSeccomp)(nil), (*rspec.LinuxMemoryPolicy)(nil)},
	}, {
		name: "seccomp replaces",
		start: func() *rspec.Spec {
			s := sampleSpec()
			s.Linux.Seccomp = &rspec.LinuxSeccomp{DefaultAction: rspec.ActAllow, Syscalls: []rspec.LinuxSyscall{{Names: []string{"x"}, Action: rspec.ActLog}}}
			return s
		},
		adj: linuxAdj(&api.LinuxContainerAdjustment{SeccompPolicy: &api.LinuxSeccomp{
			DefaultAction: "SCMP_ACT_ERRNO", DefaultErrno: &api.OptionalUInt32{Value: 1},
			Architectures: []string{"SCMP_ARCH_X86_64"}, Flags: []string{"SECCOMP_FILTER_FLAG_LOG"},
			ListenerPath: "/run/l.sock", ListenerMetadata: "m",
			Syscalls: []*api.LinuxSyscall{{
				Names: []string{"read", "write"}, Action: "SCMP_ACT_ALLOW",
				Args: []*api.LinuxSeccompArg{{Index: 1, Value: 2, ValueTwo: 3, Op: "SCMP_CMP_MASKED_EQ"}},
			}, {Names: []string{"mount"}, Action: "SCMP_ACT_ERRNO", ErrnoRet: &api.OptionalUInt32{Value: 38}}},
		}}),
		want: []any{path, &rspec.LinuxSeccomp{
			DefaultAction: rspec.ActErrno, DefaultErrnoRet: ptr[uint](1),
			Architectures: []rspec.Arch{rspec.ArchX86_64}, Flags: []rspec.LinuxSeccompFlag{rspec.LinuxSeccompFlagLog},
			ListenerPath: "/run/l.sock", ListenerMetadata: "m",
			Syscalls: []rspec.LinuxSyscall{{
				Names: []string{"read", "write"}, Action: rspec.ActAllow,
				Args: []rspec.LinuxSeccompArg{{Index: 1, Value: 2, ValueTwo: 3, Op: rspec.OpMaskedEqual}},
			}, {Names: []string{"mount"}, Action: rspec.ActErrno, ErrnoRet: ptr[uint](38)}},
		}, (*rspec.LinuxMemoryPolicy)(nil)},
	}, {
		name: "seccomp unknown default action",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{SeccompPolicy: &api.LinuxSeccomp{}}),
		err:  `unknown seccomp action ""`,
	}, {
		name: "seccomp unknown operator",
		adj: linuxAdj(&api.LinuxContainerAdjustment{SeccompPolicy: &api.LinuxSeccomp{DefaultAction: "SCMP_ACT_ALLOW", Syscalls: []*api.LinuxSyscall{{
			Names: []string{"x"}, Action: "SCMP_ACT_LOG", Args: []*api.LinuxSeccompArg{{Op: "EQ"}},
		}}}}),
		err: `unknown seccomp operator "EQ"`,
	}, {
		name: "seccomp argument index",
		adj: linuxAdj(&api.LinuxContainerAdjustment{SeccompPolicy: &api.LinuxSeccomp{DefaultAction: "SCMP_ACT_ALLOW", Syscalls: []*api.LinuxSyscall{{
			Names: []string{"x"}, Action: "SCMP_ACT_LOG", Args: []*api.LinuxSeccompArg{{Index: 6, Op: "SCMP_CMP_EQ"}},
		}}}}),
		err: "index 6",
	}, {
		name: "seccomp rule without names",
		adj: linuxAdj(&api.LinuxContainerAdjustment{SeccompPolicy: &api.LinuxSeccomp{
			DefaultAction: "SCMP_ACT_ALLOW", Syscalls: []*api.LinuxSyscall{{Action: "SCMP_ACT_LOG"}},
		}}),
		err: "names no syscall",
	}, {
		name: "memory policy",
		adj: linuxAdj(&api.LinuxContainerAdjustment{MemoryPolicy: &api.LinuxMemoryPolicy{
			Mode: api.MpolMode_MPOL_BIND, Nodes: "0-1", Flags: []api.MpolFlag{api.MpolFlag_MPOL_F_STATIC_NODES},
		}}),
		want: []any{path, (*rspec.LinuxSeccomp)(nil), &rspec.LinuxMemoryPolicy{
			Mode: rspec.MpolBind, Nodes: "0-1", Flags: []rspec.MemoryPolicyFlagType{rspec.MpolFStaticNodes},
		}},
	}, {
		name: "memory policy unknown mode",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{MemoryPolicy: &api.LinuxMemoryPolicy{Mode: 7}}),
		err:  "unknown memory policy mode 7",
	}, {
		name: "memory policy unknown flag",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{MemoryPolicy: &api.LinuxMemoryPolicy{Flags: []api.MpolFlag{3}}}),
		err:  "unknown memory policy flag 3",
	}, {
		name:  "nil linux",
		start: emptySpec,
		adj:   linuxAdj(&api.LinuxContainerAdjustment{CgroupsPath: "/p", MemoryPolicy: &api.LinuxMemoryPolicy{Mode: api.MpolMode_MPOL_LOCAL}}),
		want:  []any{"/p", (*rspec.LinuxSeccomp)(nil), &rspec.LinuxMemoryPolicy{Mode: rspec.MpolLocal}},
	}})
}

func TestRdt(t *testing.T) {
	get := func(s *rspec.Spec) any { return s.Linux.IntelRdt }
	legacy := func() *rspec.Spec {
		s := sampleSpec()
		s.Linux.IntelRdt = &rspec.LinuxIntelRdt{ClosID: "old", L3CacheSchema: "L3:0=f", MemBwSchema: "MB:0=50"}
		return s
	}
	rdt := func(r *api.LinuxRdt) *api.ContainerAdjustment { return linuxAdj(&api.LinuxContainerAdjustment{Rdt: r}) }
	runApplyCases(t, get, []applyCase{{
		name: "set all",
		adj: rdt(&api.LinuxRdt{
			ClosId:           &api.OptionalString{Value: "gold"},
			Schemata:         &api.OptionalRepeatedString{Value: []string{"L3:0=ff", "MB:0=80"}},
			EnableMonitoring: &api.OptionalBool{Value: true},
		}),
		want: &rspec.LinuxIntelRdt{ClosID: "gold", Schemata: []string{"L3:0=ff", "MB:0=80"}, EnableMonitoring: true},
	}, {
		name:  "clos id keeps the rest",
		start: legacy,
		adj:   rdt(&api.LinuxRdt{ClosId: &api.OptionalString{Value: "gold"}}),
		want:  &rspec.LinuxIntelRdt{ClosID: "gold", L3CacheSchema: "L3:0=f", MemBwSchema: "MB:0=50"},
	}, {
		name:  "schemata supersede the legacy schemas",
		start: legacy,
		adj:   rdt(&api.LinuxRdt{Schemata: &api.OptionalRepeatedString{Value: []string{"L3:0=1"}}}),
		want:  &rspec.LinuxIntelRdt{ClosID: "old", Schemata: []string{"L3:0=1"}},
	}, {
		name:  "remove",
		start: legacy,
		adj:   rdt(&api.LinuxRdt{Remove: true}),
		want:  (*rspec.LinuxIntelRdt)(nil),
	}, {
		name:  "remove then set",
		start: legacy,
		adj:   rdt(&api.LinuxRdt{Remove: true, EnableMonitoring: &api.OptionalBool{Value: true}}),
		want:  &rspec.LinuxIntelRdt{EnableMonitoring: true},
	}, {
		name:  "remove comes before rdt_class",
		start: legacy,
		adj: linuxAdj(&api.LinuxContainerAdjustment{
			Rdt:       &api.LinuxRdt{Remove: true},
			Resources: &api.LinuxResources{RdtClass: &api.OptionalString{Value: "silver"}},
		}),
		want: &rspec.LinuxIntelRdt{ClosID: "silver"},
	}, {
		name: "nothing asked leaves no section",
		adj:  rdt(&api.LinuxRdt{EnableMonitoring: &api.OptionalBool{}, ClosId: &api.OptionalString{}}),
		want: (*rspec.LinuxIntelRdt)(nil),
	}, {
		name:  "nil linux",
		start: emptySpec,
		adj:   rdt(&api.LinuxRdt{ClosId: &api.OptionalString{Value: "c"}}),
		want:  &rspec.LinuxIntelRdt{ClosID: "c"},
	}, {
		name:  "remove on nil linux",
		start: emptySpec,
		adj:   rdt(&api.LinuxRdt{Remove: true}),
		get:   func(s *rspec.Spec) any { return s.Linux },
		want:  (*rspec.Linux)(nil),
	}})
}
