// SPDX-License-Identifier: Apache-2.0

package api

import (
	"testing"

	"google.golang.org/protobuf/proto"
)

// TestAdjustmentBuilders builds one adjustment with every builder and checks
// the message: removals are marked keys, sections appear only as needed.
func TestAdjustmentBuilders(t *testing.T) {
	a := &ContainerAdjustment{}
	a.AddAnnotation("a", "1")
	a.RemoveAnnotation("b")
	a.AddMount(&Mount{Destination: "/d"})
	a.RemoveMount("/old")
	a.AddEnv("E", "1")
	a.RemoveEnv("F")
	a.UpdateArgs([]string{"x"})
	a.AddHooks(&Hooks{Poststop: []*Hook{{Path: "/h"}}})
	a.AddHooks(nil)
	a.AddRlimit("RLIMIT_NOFILE", 2, 1)
	a.AddDevice(&LinuxDevice{Path: "/dev/x"})
	a.RemoveDevice("/dev/y")
	a.AddCDIDevice(&CDIDevice{Name: "v/g=0"})
	a.AddOrReplaceNamespace(&LinuxNamespace{Type: "ipc"})
	a.RemoveNamespace(&LinuxNamespace{Type: "network"})
	a.AddLinuxNetDevice("eth1", &LinuxNetDevice{Name: "n1"})
	a.AddLinuxNetDevice("eth9", nil)
	a.RemoveLinuxNetDevice("eth2")
	a.SetLinuxMemoryPolicy(MpolMode_MPOL_BIND, "0", MpolFlag_MPOL_F_STATIC_NODES)
	a.SetLinuxMemoryLimit(1)
	a.SetLinuxMemorySwap(2)
	a.SetLinuxMemoryDisableOomKiller()
	a.SetLinuxCPUShares(3)
	a.SetLinuxCPUPeriod(4)
	a.SetLinuxCPUSetCPUs("0-1")
	a.SetLinuxPidLimits(5)
	a.AddLinuxHugepageLimit("2MB", 6)
	a.SetLinuxBlockIOClass("slow")
	a.SetLinuxRDTClass("gold")
	a.SetLinuxRDTClosID("c")
	a.SetLinuxRDTSchemata([]string{"L3:0=f"})
	a.SetLinuxRDTEnableMonitoring(true)
	a.RemoveLinuxRDT()
	a.AddLinuxUnified("memory.high", "1G")
	a.SetLinuxCgroupsPath("/cg")
	adj := -10
	a.SetLinuxOomScoreAdj(&adj)
	a.SetLinuxIOPriority(&LinuxIOPriority{Class: IOPrioClass_IOPRIO_CLASS_BE})
	a.SetLinuxSeccompPolicy(&LinuxSeccomp{DefaultAction: "SCMP_ACT_LOG"})
	a.SetLinuxSysctl("net.x", "1")
	a.SetLinuxScheduler(&LinuxScheduler{Policy: LinuxSchedulerPolicy_SCHED_RR})

	want := &ContainerAdjustment{
		Annotations: map[string]string{"a": "1", "-b": ""},
		Mounts:      []*Mount{{Destination: "/d"}, {Destination: "-/old"}},
		Env:         []*KeyValue{{Key: "E", Value: "1"}, {Key: "-F"}},
		Args:        []string{"", "x"},
		Hooks:       &Hooks{Poststop: []*Hook{{Path: "/h"}}},
		Rlimits:     []*POSIXRlimit{{Type: "RLIMIT_NOFILE", Hard: 2, Soft: 1}},
		CDIDevices:  []*CDIDevice{{Name: "v/g=0"}},
		Linux: &LinuxContainerAdjustment{
			Devices:      []*LinuxDevice{{Path: "/dev/x"}, {Path: "-/dev/y"}},
			Namespaces:   []*LinuxNamespace{{Type: "ipc"}, {Type: "-network"}},
			NetDevices:   map[string]*LinuxNetDevice{"eth1": {Name: "n1"}, "-eth2": {}},
			MemoryPolicy: &LinuxMemoryPolicy{Mode: MpolMode_MPOL_BIND, Nodes: "0", Flags: []MpolFlag{MpolFlag_MPOL_F_STATIC_NODES}},
			Resources: &LinuxResources{
				Memory:         &LinuxMemory{Limit: Int64(int64(1)), Swap: Int64(int64(2)), DisableOomKiller: Bool(true)},
				Cpu:            &LinuxCPU{Shares: UInt64(uint64(3)), Period: UInt64(uint64(4)), Cpus: "0-1"},
				Pids:           &LinuxPids{Limit: 5},
				HugepageLimits: []*HugepageLimit{{PageSize: "2MB", Limit: 6}},
				BlockioClass:   String("slow"),
				RdtClass:       String("gold"),
				Unified:        map[string]string{"memory.high": "1G"},
			},
			Rdt:           &LinuxRdt{ClosId: String("c"), Schemata: RepeatedString([]string{"L3:0=f"}), EnableMonitoring: Bool(true), Remove: true},
			CgroupsPath:   "/cg",
			OomScoreAdj:   Int(-10),
			IoPriority:    &LinuxIOPriority{Class: IOPrioClass_IOPRIO_CLASS_BE},
			SeccompPolicy: &LinuxSeccomp{DefaultAction: "SCMP_ACT_LOG"},
			Sysctl:        map[string]string{"net.x": "1"},
			Scheduler:     &LinuxScheduler{Policy: LinuxSchedulerPolicy_SCHED_RR},
		},
	}
	if !proto.Equal(a, want) {
		t.Errorf("adjustment\n got %v\nwant %v", a, want)
	}
}

// TestAdjustmentSectionsOnlyAsNeeded: a builder creates the sections it
// writes to and no others.
func TestAdjustmentSectionsOnlyAsNeeded(t *testing.T) {
	a := &ContainerAdjustment{}
	a.SetLinuxCPUSetMems("0")
	if r := a.Linux.Resources; r.Memory != nil || r.Pids != nil || a.Linux.Rdt != nil || a.Hooks != nil {
		t.Errorf("unrelated sections created: %v", a)
	}
	a = &ContainerAdjustment{}
	a.SetArgs([]string{"a"})
	if a.Linux != nil || a.Args[0] != "a" {
		t.Errorf("SetArgs: %v", a)
	}
	a.SetLinuxOomScoreAdj(nil)
	if a.Linux.OomScoreAdj != nil {
		t.Error("nil OOM score set a value")
	}
}

func TestUpdateSetters(t *testing.T) {
	u := &ContainerUpdate{}
	u.SetContainerId("c1")
	u.SetIgnoreFailure()
	u.SetLinuxMemoryLimit(1)
	u.SetLinuxMemoryReservation(2)
	u.SetLinuxMemorySwap(3)
	u.SetLinuxMemoryKernel(4)
	u.SetLinuxMemoryKernelTCP(5)
	u.SetLinuxMemorySwappiness(6)
	u.SetLinuxMemoryDisableOomKiller()
	u.SetLinuxMemoryUseHierarchy()
	u.SetLinuxCPUShares(7)
	u.SetLinuxCPUQuota(8)
	u.SetLinuxCPUPeriod(9)
	u.SetLinuxCPURealtimeRuntime(10)
	u.SetLinuxCPURealtimePeriod(11)
	u.SetLinuxCPUSetCPUs("0")
	u.SetLinuxCPUSetMems("1")
	u.SetLinuxPidLimits(12)
	u.AddLinuxHugepageLimit("1GB", 13)
	u.SetLinuxBlockIOClass("b")
	u.SetLinuxRDTClass("r")
	u.AddLinuxUnified("k", "v")
	want := &ContainerUpdate{
		ContainerId: "c1", IgnoreFailure: true,
		Linux: &LinuxContainerUpdate{Resources: &LinuxResources{
			Memory: &LinuxMemory{
				Limit: Int64(int64(1)), Reservation: Int64(int64(2)), Swap: Int64(int64(3)), Kernel: Int64(int64(4)),
				KernelTcp: Int64(int64(5)), Swappiness: UInt64(uint64(6)), DisableOomKiller: Bool(true), UseHierarchy: Bool(true),
			},
			Cpu: &LinuxCPU{
				Shares: UInt64(uint64(7)), Quota: Int64(int64(8)), Period: UInt64(uint64(9)),
				RealtimeRuntime: Int64(int64(10)), RealtimePeriod: UInt64(uint64(11)), Cpus: "0", Mems: "1",
			},
			Pids:           &LinuxPids{Limit: 12},
			HugepageLimits: []*HugepageLimit{{PageSize: "1GB", Limit: 13}},
			BlockioClass:   String("b"),
			RdtClass:       String("r"),
			Unified:        map[string]string{"k": "v"},
		}},
	}
	if !proto.Equal(u, want) {
		t.Errorf("update\n got %v\nwant %v", u, want)
	}
	// The update a runtime hands to its cgroup code keeps the reference's
	// shape: a cpuset-only update still has a memory section.
	cpusetOnly := &ContainerUpdate{}
	cpusetOnly.SetLinuxCPUSetCPUs("2")
	if o := cpusetOnly.GetLinux().GetResources().ToOCI(); o.Memory == nil || o.CPU.Cpus != "2" {
		t.Errorf("cpuset-only update converted to %+v", o)
	}
}
