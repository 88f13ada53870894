// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"

	rspec "github.com/opencontainers/runtime-spec/specs-go"
)

// The spec inputs of the FromOCI conversions: for each, nil where the
// conversion takes a pointer or list, empty, partial and full.

func p[T any](v T) *T { return &v }

var resourcesInputs = map[string]*rspec.LinuxResources{
	"nil":                  nil,
	"empty":                {},
	"partial: cpuset only": {CPU: &rspec.LinuxCPU{Cpus: "0-3"}},
	"partial: memory limit, pids without limit, empty unified": {
		Memory: &rspec.LinuxMemory{Limit: p(int64(1 << 30))}, Pids: &rspec.LinuxPids{}, Unified: map[string]string{},
	},
	"partial: pids limit 0":  {Pids: &rspec.LinuxPids{Limit: p(int64(0))}},
	"partial: pids limit -1": {Pids: &rspec.LinuxPids{Limit: p(int64(-1))}},
	"full": {
		Memory: &rspec.LinuxMemory{
			Limit: p(int64(1 << 30)), Reservation: p(int64(1 << 29)), Swap: p(int64(1 << 31)),
			Kernel: p(int64(7)), KernelTCP: p(int64(8)), Swappiness: p(uint64(60)),
			DisableOOMKiller: p(true), UseHierarchy: p(false), CheckBeforeUpdate: p(true),
		},
		CPU: &rspec.LinuxCPU{
			Shares: p(uint64(1024)), Quota: p(int64(50000)), Burst: p(uint64(1)), Period: p(uint64(100000)),
			RealtimeRuntime: p(int64(950000)), RealtimePeriod: p(uint64(1000000)),
			Cpus: "0-3", Mems: "0", Idle: p(int64(0)),
		},
		Pids:           &rspec.LinuxPids{Limit: p(int64(100))},
		HugepageLimits: []rspec.LinuxHugepageLimit{{Pagesize: "2MB", Limit: 1 << 21}, {Pagesize: "1GB", Limit: 0}},
		Devices: []rspec.LinuxDeviceCgroup{
			{Allow: false, Access: "rwm"},
			{Allow: true, Type: "c", Major: p(int64(1)), Minor: p(int64(3)), Access: "rw"},
		},
		Unified: map[string]string{"memory.high": "1G", "cpu.weight": "100"},
		BlockIO: &rspec.LinuxBlockIO{Weight: p(uint16(10))},
	},
}

var mountsInputs = map[string][]rspec.Mount{
	"nil":     nil,
	"empty":   {},
	"partial": {{Destination: "/data"}},
	"full": {
		{Destination: "/proc", Type: "proc", Source: "proc", Options: []string{"nosuid", "noexec"}},
		{Destination: "/data", Type: "bind", Source: "/srv/data", Options: []string{"rbind", "rshared", "ro"}},
		{Destination: "/tmp", Type: "tmpfs", Source: "tmpfs", Options: []string{}},
	},
}

var hooksInputs = map[string]*rspec.Hooks{
	"nil":     nil,
	"empty":   {},
	"partial": {CreateRuntime: []rspec.Hook{{Path: "/bin/hook"}}},
	"full": {
		Prestart:        []rspec.Hook{{Path: "/a", Args: []string{"a", "1"}, Env: []string{"X=1"}, Timeout: p(5)}},
		CreateRuntime:   []rspec.Hook{{Path: "/b"}, {Path: "/c", Timeout: p(0)}},
		CreateContainer: []rspec.Hook{{Path: "/d", Args: []string{}}},
		StartContainer:  []rspec.Hook{{Path: "/e"}},
		Poststart:       []rspec.Hook{{Path: "/f", Env: []string{"Y=2"}}},
		Poststop:        []rspec.Hook{{Path: "/g", Timeout: p(-1)}},
	},
}

var namespacesInputs = map[string][]rspec.LinuxNamespace{
	"nil":     nil,
	"empty":   {},
	"partial": {{Type: rspec.PIDNamespace}},
	"full": {
		{Type: rspec.PIDNamespace}, {Type: rspec.NetworkNamespace, Path: "/var/run/netns/x"},
		{Type: rspec.MountNamespace}, {Type: rspec.IPCNamespace}, {Type: rspec.UTSNamespace},
		{Type: rspec.UserNamespace}, {Type: rspec.CgroupNamespace}, {Type: rspec.TimeNamespace},
	},
}

var devicesInputs = map[string][]rspec.LinuxDevice{
	"nil":     nil,
	"empty":   {},
	"partial": {{Path: "/dev/null", Type: "c", Major: 1, Minor: 3}},
	"full": {
		{Path: "/dev/null", Type: "c", Major: 1, Minor: 3, FileMode: p(os.FileMode(0o666)), UID: p(uint32(0)), GID: p(uint32(5))},
		{Path: "/dev/sda", Type: "b", Major: 8, FileMode: p(os.FileMode(0o600) | os.ModeDevice)},
	},
}

var netDevicesInputs = map[string]map[string]rspec.LinuxNetDevice{
	"nil":     nil,
	"empty":   {},
	"partial": {"eth1": {}},
	"full":    {"eth1": {Name: "net1"}, "eth2": {Name: "net2"}},
}

var seccompInputs = map[string]*rspec.LinuxSeccomp{
	// nil is left out: the reference's FromOCILinuxSeccomp crashes on it
	// (nrikit's gives nil; checked by nrikit's own tests).
	"empty":   {},
	"partial": {DefaultAction: rspec.ActAllow},
	"full": {
		DefaultAction: rspec.ActErrno, DefaultErrnoRet: p(uint(1)),
		Architectures: []rspec.Arch{rspec.ArchX86_64, rspec.ArchAARCH64},
		Flags:         []rspec.LinuxSeccompFlag{rspec.LinuxSeccompFlagLog},
		ListenerPath:  "/run/seccomp.sock", ListenerMetadata: "meta",
		Syscalls: []rspec.LinuxSyscall{
			{Names: []string{"read", "write"}, Action: rspec.ActAllow},
			{Names: []string{"kill"}, Action: rspec.ActErrno, ErrnoRet: p(uint(13)),
				Args: []rspec.LinuxSeccompArg{{Index: 1, Value: 9, ValueTwo: 0, Op: rspec.OpEqualTo}}},
		},
	},
}

var ioPriorityInputs = map[string]*rspec.LinuxIOPriority{
	"nil":           nil,
	"empty":         {},
	"partial":       {Class: rspec.IOPRIO_CLASS_IDLE},
	"full":          {Class: rspec.IOPRIO_CLASS_RT, Priority: 4},
	"unknown class": {Class: "IOPRIO_CLASS_BOGUS", Priority: 2},
}

var schedulerInputs = map[string]*rspec.Scheduler{
	"nil":     nil,
	"empty":   {},
	"partial": {Policy: rspec.SchedBatch, Nice: 5},
	"full": {
		Policy: rspec.SchedDeadline, Nice: -1, Priority: 2, Runtime: 3, Deadline: 4, Period: 5,
		Flags: []rspec.LinuxSchedulerFlag{rspec.SchedFlagResetOnFork, rspec.SchedFlagReclaim, rspec.SchedFlagUtilClampMax},
	},
	"unknown policy": {Policy: "SCHED_BOGUS", Priority: 1},
}

var memoryPolicyInputs = map[string]*rspec.LinuxMemoryPolicy{
	"nil":     nil,
	"empty":   {},
	"partial": {Mode: rspec.MpolBind, Nodes: "0"},
	"full": {
		Mode: rspec.MpolWeightedInterleave, Nodes: "0-3",
		Flags: []rspec.MemoryPolicyFlagType{rspec.MpolFStaticNodes, rspec.MpolFNumaBalancing},
	},
}

var envInputs = map[string][]string{
	"nil":     nil,
	"empty":   {},
	"partial": {"A=1"},
	"full":    {"A=1", "B=", "C", "D=x=y", "=v", ""},
}
