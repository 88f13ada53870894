// SPDX-License-Identifier: Apache-2.0

package main

import (
	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// baseSpec is a container spec as a CRI runtime generates it. Its mounts
// are in the order both sides sort to (by depth, then by path), so that only
// an adjustment's mounts can reorder them.
func baseSpec() *rspec.Spec {
	return &rspec.Spec{
		Version: "1.2.0",
		Process: &rspec.Process{
			User:        rspec.User{UID: 1000, GID: 1000},
			Args:        []string{"/bin/sh", "-c", "sleep inf"},
			Env:         []string{"PATH=/usr/bin:/bin", "HOSTNAME=ctr0", "TERM=xterm"},
			Cwd:         "/",
			Rlimits:     []rspec.POSIXRlimit{{Type: "RLIMIT_NOFILE", Hard: 1024, Soft: 1024}},
			OOMScoreAdj: ptr(100),
		},
		Root:     &rspec.Root{Path: "rootfs"},
		Hostname: "ctr0",
		Mounts: []rspec.Mount{
			{Destination: "/dev", Type: "tmpfs", Source: "tmpfs", Options: []string{"nosuid", "mode=755"}},
			{Destination: "/proc", Type: "proc", Source: "proc", Options: []string{"nosuid", "noexec", "nodev"}},
			{Destination: "/sys", Type: "sysfs", Source: "sysfs", Options: []string{"nosuid", "noexec", "nodev", "ro"}},
			{Destination: "/dev/pts", Type: "devpts", Source: "devpts", Options: []string{"nosuid", "noexec"}},
			{Destination: "/dev/shm", Type: "bind", Source: "/run/shm/pod0", Options: []string{"rbind", "rw"}},
			{Destination: "/etc/hosts", Type: "bind", Source: "/var/lib/pods/pod0/hosts", Options: []string{"rbind", "rprivate", "rw"}},
			{Destination: "/sys/fs/cgroup", Type: "cgroup", Source: "cgroup", Options: []string{"nosuid", "noexec", "nodev", "ro"}},
		},
		Annotations: map[string]string{
			"io.kubernetes.cri-o.SandboxID": "pod0",
			"io.kubernetes.container.name":  "ctr0",
		},
		Linux: &rspec.Linux{
			Resources: &rspec.LinuxResources{
				Devices: []rspec.LinuxDeviceCgroup{{Allow: false, Access: "rwm"}},
				Memory:  &rspec.LinuxMemory{Limit: ptr[int64](256 << 20), Swap: ptr[int64](256 << 20)},
				CPU:     &rspec.LinuxCPU{Shares: ptr[uint64](1024), Quota: ptr[int64](50000), Period: ptr[uint64](100000)},
			},
			CgroupsPath: "kubepods-pod0.slice:crio:ctr0",
			Namespaces: []rspec.LinuxNamespace{
				{Type: rspec.PIDNamespace},
				{Type: rspec.IPCNamespace, Path: "/proc/42/ns/ipc"},
				{Type: rspec.UTSNamespace, Path: "/proc/42/ns/uts"},
				{Type: rspec.MountNamespace},
				{Type: rspec.NetworkNamespace, Path: "/var/run/netns/pod0"},
			},
			Sysctl:      map[string]string{"net.ipv4.ip_unprivileged_port_start": "0"},
			MaskedPaths: []string{"/proc/kcore"},
		},
	}
}

func i64(v int64) *api.OptionalInt64   { return &api.OptionalInt64{Value: v} }
func u64(v uint64) *api.OptionalUInt64 { return &api.OptionalUInt64{Value: v} }
func str(v string) *api.OptionalString { return &api.OptionalString{Value: v} }
func boolean(v bool) *api.OptionalBool { return &api.OptionalBool{Value: v} }
func memory(m *api.LinuxMemory) *api.ContainerAdjustment {
	return resources(&api.LinuxResources{Memory: m})
}
func resources(r *api.LinuxResources) *api.ContainerAdjustment {
	return &api.ContainerAdjustment{Linux: &api.LinuxContainerAdjustment{Resources: r}}
}

// hostRootMount mounts the host's root with the given propagation, at a
// path both sides sort last.
func hostRootMount(propagation string) *api.ContainerAdjustment {
	return &api.ContainerAdjustment{Mounts: []*api.Mount{
		{Destination: "/zz-host", Source: "/", Type: "bind", Options: []string{"rbind", propagation, "ro"}},
	}}
}

// fullAdjustment sets something in every part of an adjustment.
func fullAdjustment() *api.ContainerAdjustment {
	return &api.ContainerAdjustment{
		Annotations: map[string]string{"example.com/a": "1", "io.kubernetes.cri-o.Devices": "x"},
		Mounts:      []*api.Mount{{Destination: "/data", Source: "/srv/data", Type: "bind", Options: []string{"rbind", "rw"}}},
		Env:         []*api.KeyValue{{Key: "TERM", Value: "dumb"}, {Key: "NEW", Value: "1"}},
		Args:        []string{"/bin/app", "--flag"},
		Hooks: &api.Hooks{
			Prestart:        []*api.Hook{{Path: "/bin/prestart"}},
			CreateRuntime:   []*api.Hook{{Path: "/bin/cr", Args: []string{"cr", "x"}}},
			CreateContainer: []*api.Hook{{Path: "/bin/cc"}},
			StartContainer:  []*api.Hook{{Path: "/bin/sc", Env: []string{"A=1"}}},
			Poststart:       []*api.Hook{{Path: "/bin/ps"}},
			Poststop:        []*api.Hook{{Path: "/bin/pst", Timeout: &api.OptionalInt{Value: 5}}},
		},
		Rlimits:    []*api.POSIXRlimit{{Type: "RLIMIT_CORE", Hard: 0, Soft: 0}},
		CDIDevices: []*api.CDIDevice{{Name: "vendor.com/gpu=0"}},
		Linux: &api.LinuxContainerAdjustment{
			Devices: []*api.LinuxDevice{{Path: "/dev/fuse", Type: "c", Major: 10, Minor: 229, FileMode: &api.OptionalFileMode{Value: 0o666}}},
			Resources: &api.LinuxResources{
				Memory:         &api.LinuxMemory{Limit: i64(512 << 20)},
				Cpu:            &api.LinuxCPU{Shares: u64(2048), Quota: i64(100000), Period: u64(100000), Cpus: "0-3", Mems: "0", RealtimeRuntime: i64(1), RealtimePeriod: u64(2)},
				HugepageLimits: []*api.HugepageLimit{{PageSize: "2MB", Limit: 4 << 20}},
				Unified:        map[string]string{"memory.high": "400M"},
				Devices:        []*api.LinuxDeviceCgroup{{Allow: true, Type: "b", Major: i64(8), Minor: i64(0), Access: "r"}},
				Pids:           &api.LinuxPids{Limit: 256},
				BlockioClass:   str("slow"),
				RdtClass:       str("gold"),
			},
			CgroupsPath: "kubepods-pod0.slice:crio:ctr0-new",
			OomScoreAdj: &api.OptionalInt{Value: -500},
			IoPriority:  &api.LinuxIOPriority{Class: api.IOPrioClass_IOPRIO_CLASS_BE, Priority: 4},
			SeccompPolicy: &api.LinuxSeccomp{
				DefaultAction: "SCMP_ACT_ERRNO",
				Architectures: []string{"SCMP_ARCH_X86_64"},
				Syscalls:      []*api.LinuxSyscall{{Names: []string{"read", "write"}, Action: "SCMP_ACT_ALLOW"}},
			},
			Namespaces: []*api.LinuxNamespace{{Type: "cgroup"}, {Type: "network", Path: "/var/run/netns/other"}},
			Sysctl:     map[string]string{"net.core.somaxconn": "1024"},
			NetDevices: map[string]*api.LinuxNetDevice{"eth1": {Name: "net1"}},
			Scheduler:  &api.LinuxScheduler{Policy: api.LinuxSchedulerPolicy_SCHED_RR, Priority: 10},
			Rdt:        &api.LinuxRdt{Schemata: &api.OptionalRepeatedString{Value: []string{"L3:0=f"}}, EnableMonitoring: boolean(true)},
			MemoryPolicy: &api.LinuxMemoryPolicy{
				Mode: api.MpolMode_MPOL_BIND, Nodes: "0",
			},
		},
	}
}

// The deliberate differences, each with the reason nrikit does it its way.
const (
	allOrNothing = "all or nothing: when a hook fails, nrikit leaves the spec exactly as it was; " +
		"the reference keeps what it applied before the failing step"
	deviceAccess = "a device a plugin adds is allowed \"rwm\" in the device cgroup, as runtimes allow the devices " +
		"they add themselves; the reference allows char devices \"rw\" only"
	mountOrder = "nrikit sorts mounts by depth stably: mounts at the same depth keep the runtime's order and added " +
		"ones follow them; the reference also re-sorts same-depth mounts by path, reordering the runtime's own"
	explicitSwap = "nrikit applies the swap limit the plugin set; the reference overrides it with the memory limit"
	memoryFields = "nrikit applies every memory setting the plugin made; the reference applies only the limit " +
		"(and swap) and drops reservation, swappiness, OOM killer and the rest"
	rlimitByType   = "an rlimit replaces the spec's one of its type; the reference appends a second entry of the type"
	deviceInPlace  = "a replaced device keeps its place in the list; the reference moves it to the end"
	rdtRemoveFirst = "RDT removal drops the spec's RDT settings before any RDT setting of the same adjustment, " +
		"rdt_class included (removals before sets, as for every keyed field); the reference removes after applying " +
		"the class, discarding what the class resolved to"
	pidsUnlimited = "a pids limit of -1 is set as -1, which the spec and runtimes read as no limit; the reference " +
		"ignores it and keeps the spec's limit"
	rdtDefault = "without an RDT resolver the class is used as the CLOS ID, as containerd's resolver does; " +
		"the reference ignores the class"
	namelessCDI = "a CDI device without a name names nothing and is skipped; the reference hands \"\" to the injector, " +
		"whose registry cannot resolve it, and fails the container"
)

func cases() []testCase {
	return []testCase{
		{name: "nil adjustment"},
		{name: "empty adjustment", adj: &api.ContainerAdjustment{}},
		{name: "empty linux part", adj: &api.ContainerAdjustment{Linux: &api.LinuxContainerAdjustment{Resources: &api.LinuxResources{}}}},
		{name: "partial: annotations, env, args", adj: &api.ContainerAdjustment{
			Annotations: map[string]string{"example.com/a": "1"},
			Env:         []*api.KeyValue{{Key: "TERM", Value: "dumb"}, {Key: "NEW", Value: "1"}},
			Args:        []string{"/bin/app"},
		}},
		{name: "full", adj: fullAdjustment(), differences: []difference{
			{"linux.resources.devices[2].access", deviceAccess}, {"mounts", mountOrder},
		}},
		{name: "full, node without swap and hugetlb", adj: fullAdjustment(), node: node{noSwap: true, noHugetlb: true}, differences: []difference{
			{"linux.resources.devices[2].access", deviceAccess}, {"mounts", mountOrder},
		}},
		{name: "removals", adj: &api.ContainerAdjustment{
			Annotations: map[string]string{"-io.kubernetes.container.name": ""},
			Mounts:      []*api.Mount{{Destination: "-/etc/hosts"}},
			Env:         []*api.KeyValue{{Key: "-TERM"}},
			Linux: &api.LinuxContainerAdjustment{
				Devices:    []*api.LinuxDevice{{Path: "-/dev/none"}},
				Namespaces: []*api.LinuxNamespace{{Type: "-ipc"}},
				Sysctl:     map[string]string{"-net.ipv4.ip_unprivileged_port_start": ""},
				NetDevices: map[string]*api.LinuxNetDevice{"-eth9": nil},
			},
		}},
		{name: "CDI device, then the plugins' device and mount edits on top", adj: &api.ContainerAdjustment{
			CDIDevices: []*api.CDIDevice{{Name: "vendor.com/gpu=0"}},
			Env:        []*api.KeyValue{{Key: "GPU_VISIBLE", Value: "plugin"}},
			Mounts:     []*api.Mount{{Destination: "/usr/lib/gpu", Source: "/opt/other", Type: "bind", Options: []string{"ro", "bind"}}},
			Linux: &api.LinuxContainerAdjustment{
				Devices: []*api.LinuxDevice{{Path: "-/dev/gpu0"}},
			},
		}},
		{name: "CDI device the registry cannot resolve", adj: &api.ContainerAdjustment{
			Annotations: map[string]string{"example.com/a": "1"},
			CDIDevices:  []*api.CDIDevice{{Name: "vendor.com/gpu=9"}},
		}, fails: true, differences: []difference{{`annotations["example.com/a"]`, allOrNothing}}},
		{name: "CDI device without a name", adj: &api.ContainerAdjustment{
			Annotations: map[string]string{"example.com/a": "1"},
			CDIDevices:  []*api.CDIDevice{{}},
		}, fails: true, differences: []difference{{"error", namelessCDI}, {"calls", namelessCDI}}},
		{name: "memory limit only", adj: memory(&api.LinuxMemory{Limit: i64(1 << 30)})},
		{name: "memory limit, unlimited", adj: memory(&api.LinuxMemory{Limit: i64(-1)})},
		{name: "memory limit zero", adj: memory(&api.LinuxMemory{Limit: i64(0)})},
		{name: "memory limit and swap", adj: memory(&api.LinuxMemory{Limit: i64(1 << 30), Swap: i64(2 << 30)}), differences: []difference{
			{"linux.resources.memory.swap", explicitSwap}, {"calls", explicitSwap + " (the checker sees each side's swap)"},
		}},
		{name: "memory limit, node without swap", adj: memory(&api.LinuxMemory{Limit: i64(1 << 30)}), node: node{noSwap: true}},
		{name: "memory limit below the runtime's minimum", adj: memory(&api.LinuxMemory{Limit: i64(1 << 20)}), fails: true,
			differences: []difference{{"linux.resources.memory", allOrNothing}}},
		{name: "memory: all but the limit", adj: memory(&api.LinuxMemory{
			Reservation: i64(1 << 20), Swappiness: u64(10), DisableOomKiller: boolean(true),
		}), differences: []difference{{"linux.resources.memory", memoryFields}}},
		{name: "hugepage limits", adj: resources(&api.LinuxResources{HugepageLimits: []*api.HugepageLimit{{PageSize: "2MB", Limit: 1 << 21}, {PageSize: "1GB", Limit: 1 << 30}}})},
		{name: "hugepage limits, node without hugetlb", adj: resources(&api.LinuxResources{HugepageLimits: []*api.HugepageLimit{{PageSize: "2MB", Limit: 1 << 21}}}), node: node{noHugetlb: true}},
		{name: "block I/O and RDT classes", adj: resources(&api.LinuxResources{BlockioClass: str("slow"), RdtClass: str("gold")})},
		{name: "block I/O and RDT classes, no hooks", adj: resources(&api.LinuxResources{BlockioClass: str("slow"), RdtClass: str("gold")}),
			node: node{noHooks: true}, differences: []difference{{"linux.intelRdt", rdtDefault}}},
		{name: "CDI device, no hooks", adj: &api.ContainerAdjustment{CDIDevices: []*api.CDIDevice{{Name: "vendor.com/gpu=0"}}}, node: node{noHooks: true}},
		{name: "block I/O and RDT classes cleared", adj: resources(&api.LinuxResources{BlockioClass: str(""), RdtClass: str("")}),
			base: func(s *rspec.Spec) {
				s.Linux.Resources.BlockIO = &rspec.LinuxBlockIO{Weight: ptr[uint16](5)}
				s.Linux.IntelRdt = &rspec.LinuxIntelRdt{ClosID: "old"}
			}},
		{name: "unknown block I/O class", adj: &api.ContainerAdjustment{
			Env:   []*api.KeyValue{{Key: "NEW", Value: "1"}},
			Linux: &api.LinuxContainerAdjustment{Resources: &api.LinuxResources{Cpu: &api.LinuxCPU{Cpus: "1"}, BlockioClass: str("fast")}},
		}, fails: true, differences: []difference{{"process.env", allOrNothing}, {"linux.resources.cpu.cpus", allOrNothing}}},
		{name: "filter refuses", adj: &api.ContainerAdjustment{Annotations: map[string]string{"example.com/a": "1"}}, node: node{failAt: "filter"}, fails: true},
		{name: "checker refuses", adj: &api.ContainerAdjustment{
			Annotations: map[string]string{"example.com/a": "1"},
			Linux:       &api.LinuxContainerAdjustment{Resources: &api.LinuxResources{Cpu: &api.LinuxCPU{Cpus: "1"}}},
		}, node: node{failAt: "check"}, fails: true, differences: []difference{
			{`annotations["example.com/a"]`, allOrNothing}, {"linux.resources.cpu.cpus", allOrNothing},
		}},
		{name: "rlimit of a type the spec has", adj: &api.ContainerAdjustment{
			Rlimits: []*api.POSIXRlimit{{Type: "RLIMIT_NOFILE", Hard: 4096, Soft: 2048}},
		}, differences: []difference{{"process.rlimits", rlimitByType}}},
		{name: "device replaced", base: func(s *rspec.Spec) {
			s.Linux.Devices = []rspec.LinuxDevice{{Path: "/dev/a", Type: "c", Major: 1, Minor: 1}, {Path: "/dev/b", Type: "c", Major: 1, Minor: 2}}
		}, adj: &api.ContainerAdjustment{Linux: &api.LinuxContainerAdjustment{
			Devices: []*api.LinuxDevice{{Path: "/dev/a", Type: "c", Major: 1, Minor: 3}},
		}}, differences: []difference{{"linux.devices", deviceInPlace}, {"linux.resources.devices[1].access", deviceAccess}}},
		{name: "pids unlimited", base: func(s *rspec.Spec) { s.Linux.Resources.Pids = &rspec.LinuxPids{Limit: ptr[int64](100)} },
			adj: resources(&api.LinuxResources{Pids: &api.LinuxPids{Limit: -1}}), differences: []difference{{"linux.resources.pids.limit", pidsUnlimited}}},
		{name: "I/O priority and scheduler cleared", base: func(s *rspec.Spec) {
			s.Process.IOPriority = &rspec.LinuxIOPriority{Class: rspec.IOPRIO_CLASS_RT, Priority: 1}
			s.Process.Scheduler = &rspec.Scheduler{Policy: rspec.SchedFIFO, Priority: 1}
		}, adj: &api.ContainerAdjustment{Linux: &api.LinuxContainerAdjustment{
			IoPriority: &api.LinuxIOPriority{Class: api.IOPrioClass_IOPRIO_CLASS_NONE},
			Scheduler:  &api.LinuxScheduler{Policy: api.LinuxSchedulerPolicy_SCHED_NONE},
		}}},
		// Both sides read this machine's mount table: "/" is shared, a slave
		// or private here, and where it cannot serve the mount both fail.
		{name: "rshared mount of the host's root", adj: hostRootMount("rshared"), hostDecides: true},
		{name: "rslave mount of the host's root", adj: hostRootMount("rslave"), hostDecides: true},
		{name: "RDT class, then RDT removal", adj: &api.ContainerAdjustment{Linux: &api.LinuxContainerAdjustment{
			Resources: &api.LinuxResources{RdtClass: str("gold")},
			Rdt:       &api.LinuxRdt{Remove: true, ClosId: str("plugin")},
		}}, differences: []difference{{"linux.intelRdt.schemata", rdtRemoveFirst}}},
	}
}
