// SPDX-License-Identifier: Apache-2.0

package limits

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/api"
)

func i64(v int64) *api.OptionalInt64             { return &api.OptionalInt64{Value: v} }
func u64(v uint64) *api.OptionalUInt64           { return &api.OptionalUInt64{Value: v} }
func mem(m *api.LinuxMemory) *api.LinuxResources { return &api.LinuxResources{Memory: m} }
func cpuRes(c *api.LinuxCPU) *api.LinuxResources { return &api.LinuxResources{Cpu: c} }

func linux(l *api.LinuxContainerAdjustment) *api.ContainerAdjustment {
	return &api.ContainerAdjustment{Linux: l}
}

func res(r *api.LinuxResources) *api.ContainerAdjustment {
	return linux(&api.LinuxContainerAdjustment{Resources: r})
}

// TestAdjustment: one row per field and bound; field is the name the error
// must carry, "" when the value is accepted.
func TestAdjustment(t *testing.T) {
	for _, tc := range []struct {
		name  string
		adj   *api.ContainerAdjustment
		field string
	}{
		{"nil", nil, ""},
		{"device node 1:3", dev(&api.LinuxDevice{Path: "/dev/null", Type: "c", Major: 1, Minor: 3}), ""},
		{"device node negative minor", dev(&api.LinuxDevice{Path: "/dev/x0", Type: "c", Major: 10, Minor: -1}), "devices[/dev/x0]"},
		{"device node negative major", dev(&api.LinuxDevice{Path: "/dev/b", Type: "b", Major: -8}), "devices[/dev/b]"},
		{"fifo without numbers", dev(&api.LinuxDevice{Path: "/dev/p", Type: "p", Major: -1, Minor: -1}), ""},
		{"memory limit -1", res(mem(&api.LinuxMemory{Limit: i64(-1)})), ""},
		{"memory limit 0", res(mem(&api.LinuxMemory{Limit: i64(0)})), ""},
		{"memory limit -2", res(mem(&api.LinuxMemory{Limit: i64(-2)})), "memory.limit"},
		{"memory limit min int64", res(mem(&api.LinuxMemory{Limit: i64(math.MinInt64)})), "memory.limit"},
		{"memory reservation -5", res(mem(&api.LinuxMemory{Reservation: i64(-5)})), "memory.reservation"},
		{"memory swap -2", res(mem(&api.LinuxMemory{Swap: i64(-2)})), "memory.swap"},
		{"memory swap below limit", res(mem(&api.LinuxMemory{Limit: i64(2 << 20), Swap: i64(1 << 20)})), "memory.swap"},
		{"memory swap unlimited", res(mem(&api.LinuxMemory{Limit: i64(2 << 20), Swap: i64(-1)})), ""},
		{"memory kernel -3", res(mem(&api.LinuxMemory{Kernel: i64(-3)})), "memory.kernel"},
		{"memory kernel tcp -3", res(mem(&api.LinuxMemory{KernelTcp: i64(-3)})), "memory.kernel_tcp"},
		{"swappiness 100", res(mem(&api.LinuxMemory{Swappiness: u64(100)})), ""},
		{"swappiness 101", res(mem(&api.LinuxMemory{Swappiness: u64(101)})), "memory.swappiness"},
		{"shares 0", res(cpuRes(&api.LinuxCPU{Shares: u64(0)})), ""},
		{"shares 1", res(cpuRes(&api.LinuxCPU{Shares: u64(1)})), "cpu.shares"},
		{"shares 2", res(cpuRes(&api.LinuxCPU{Shares: u64(2)})), ""},
		{"shares 262144", res(cpuRes(&api.LinuxCPU{Shares: u64(262144)})), ""},
		{"shares 262145", res(cpuRes(&api.LinuxCPU{Shares: u64(262145)})), "cpu.shares"},
		{"shares negative on the wire", res(cpuRes(&api.LinuxCPU{Shares: u64(math.MaxUint64)})), "cpu.shares"},
		{"quota -1", res(cpuRes(&api.LinuxCPU{Quota: i64(-1)})), ""},
		{"quota 0", res(cpuRes(&api.LinuxCPU{Quota: i64(0)})), ""},
		{"quota -2", res(cpuRes(&api.LinuxCPU{Quota: i64(-2)})), "cpu.quota"},
		{"quota 999", res(cpuRes(&api.LinuxCPU{Quota: i64(999)})), "cpu.quota"},
		{"quota 1000", res(cpuRes(&api.LinuxCPU{Quota: i64(1000)})), ""},
		{"quota 2^44", res(cpuRes(&api.LinuxCPU{Quota: i64(1 << 44)})), "cpu.quota"},
		{"period 0", res(cpuRes(&api.LinuxCPU{Period: u64(0)})), ""},
		{"period 999", res(cpuRes(&api.LinuxCPU{Period: u64(999)})), "cpu.period"},
		{"period 100000", res(cpuRes(&api.LinuxCPU{Period: u64(100000)})), ""},
		{"period 1000001", res(cpuRes(&api.LinuxCPU{Period: u64(1000001)})), "cpu.period"},
		{"rt runtime -1", res(cpuRes(&api.LinuxCPU{RealtimeRuntime: i64(-1)})), ""},
		{"rt runtime -2", res(cpuRes(&api.LinuxCPU{RealtimeRuntime: i64(-2)})), "cpu.realtime_runtime"},
		{"rt runtime above period", res(cpuRes(&api.LinuxCPU{RealtimeRuntime: i64(2000), RealtimePeriod: u64(1000)})), "cpu.realtime_runtime"},
		{"rt period huge", res(cpuRes(&api.LinuxCPU{RealtimePeriod: u64(math.MaxUint64)})), "cpu.realtime_period"},
		{"cpus list", res(cpuRes(&api.LinuxCPU{Cpus: "0-3,8,10-15:2/4"})), ""},
		{"cpus garbage", res(cpuRes(&api.LinuxCPU{Cpus: "all"})), "cpu.cpus"},
		{"cpus backwards", res(cpuRes(&api.LinuxCPU{Cpus: "3-1"})), "cpu.cpus"},
		{"cpus negative", res(cpuRes(&api.LinuxCPU{Cpus: "-1"})), "cpu.cpus"},
		{"cpus empty item", res(cpuRes(&api.LinuxCPU{Cpus: "0,,1"})), "cpu.cpus"},
		{"cpus huge", res(cpuRes(&api.LinuxCPU{Cpus: "0-4294967295"})), "cpu.cpus"},
		{"cpus bad group", res(cpuRes(&api.LinuxCPU{Cpus: "0-7:0/4"})), "cpu.cpus"},
		{"mems garbage", res(cpuRes(&api.LinuxCPU{Mems: "0;1"})), "cpu.mems"},
		{"pids -1", res(&api.LinuxResources{Pids: &api.LinuxPids{Limit: -1}}), ""},
		{"pids -2", res(&api.LinuxResources{Pids: &api.LinuxPids{Limit: -2}}), "pids.limit"},
		{"hugepage 2MB", res(&api.LinuxResources{HugepageLimits: []*api.HugepageLimit{{PageSize: "2MB", Limit: 1}}}), ""},
		{"hugepage path", res(&api.LinuxResources{HugepageLimits: []*api.HugepageLimit{{PageSize: "../2MB"}}}), "hugepage_limits"},
		{"hugepage unit", res(&api.LinuxResources{HugepageLimits: []*api.HugepageLimit{{PageSize: "2XB"}}}), "hugepage_limits"},
		{"unified ok", res(&api.LinuxResources{Unified: map[string]string{"memory.high": "max"}}), ""},
		{"unified traversal", res(&api.LinuxResources{Unified: map[string]string{"../../memory.max": "1"}}), "unified"},
		{"unified dotfile", res(&api.LinuxResources{Unified: map[string]string{".memory": "1"}}), "unified"},
		{"unified no controller", res(&api.LinuxResources{Unified: map[string]string{"release_agent": "/x"}}), "unified"},
		{"unified NUL value", res(&api.LinuxResources{Unified: map[string]string{"memory.high": "1\x00"}}), "unified"},
		{"oom -1000", linux(&api.LinuxContainerAdjustment{OomScoreAdj: &api.OptionalInt{Value: -1000}}), ""},
		{"oom 1001", linux(&api.LinuxContainerAdjustment{OomScoreAdj: &api.OptionalInt{Value: 1001}}), "oom_score_adj"},
		{"oom -1001", linux(&api.LinuxContainerAdjustment{OomScoreAdj: &api.OptionalInt{Value: -1001}}), "oom_score_adj"},
		{"rlimit ok", &api.ContainerAdjustment{Rlimits: []*api.POSIXRlimit{{Type: "RLIMIT_NOFILE", Soft: 1, Hard: 2}}}, ""},
		{"rlimit soft above hard", &api.ContainerAdjustment{Rlimits: []*api.POSIXRlimit{{Type: "RLIMIT_NOFILE", Soft: 3, Hard: 2}}}, "rlimits[RLIMIT_NOFILE]"},
		{"rlimit without type", &api.ContainerAdjustment{Rlimits: []*api.POSIXRlimit{{Soft: 1, Hard: 2}}}, "rlimits"},
		{"io priority 8", linux(&api.LinuxContainerAdjustment{IoPriority: &api.LinuxIOPriority{Priority: 8}}), "io_priority.priority"},
		{"nice -21", linux(&api.LinuxContainerAdjustment{Scheduler: &api.LinuxScheduler{Nice: -21}}), "scheduler.nice"},
		{"sched priority 100", linux(&api.LinuxContainerAdjustment{Scheduler: &api.LinuxScheduler{Priority: 100}}), "scheduler.priority"},
		{"memory policy nodes", linux(&api.LinuxContainerAdjustment{MemoryPolicy: &api.LinuxMemoryPolicy{Nodes: "0-1"}}), ""},
		{"memory policy bad nodes", linux(&api.LinuxContainerAdjustment{MemoryPolicy: &api.LinuxMemoryPolicy{Nodes: "x"}}), "memory_policy.nodes"},
		{"io priority class idle", linux(&api.LinuxContainerAdjustment{IoPriority: &api.LinuxIOPriority{Class: api.IOPrioClass_IOPRIO_CLASS_IDLE}}), ""},
		{"io priority class 12345", linux(&api.LinuxContainerAdjustment{IoPriority: &api.LinuxIOPriority{Class: 12345}}), "io_priority.class"},
		{"sched policy deadline", linux(&api.LinuxContainerAdjustment{Scheduler: &api.LinuxScheduler{Policy: api.LinuxSchedulerPolicy_SCHED_DEADLINE}}), ""},
		{"sched policy 8", linux(&api.LinuxContainerAdjustment{Scheduler: &api.LinuxScheduler{Policy: 8}}), "scheduler.policy"},
		{"sched policy -1", linux(&api.LinuxContainerAdjustment{Scheduler: &api.LinuxScheduler{Policy: -1}}), "scheduler.policy"},
		{"sched flag 99", linux(&api.LinuxContainerAdjustment{Scheduler: &api.LinuxScheduler{Flags: []api.LinuxSchedulerFlag{0, 99}}}), "scheduler.flags"},
		{"memory policy mode 7", linux(&api.LinuxContainerAdjustment{MemoryPolicy: &api.LinuxMemoryPolicy{Mode: 7}}), "memory_policy.mode"},
		{"memory policy flag 3", linux(&api.LinuxContainerAdjustment{MemoryPolicy: &api.LinuxMemoryPolicy{Flags: []api.MpolFlag{3}}}), "memory_policy.flags"},
		{"memory policy weighted interleave", linux(&api.LinuxContainerAdjustment{MemoryPolicy: &api.LinuxMemoryPolicy{Mode: api.MpolMode_MPOL_WEIGHTED_INTERLEAVE, Flags: []api.MpolFlag{api.MpolFlag_MPOL_F_NUMA_BALANCING}}}), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Adjustment(tc.adj)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || !errors.Is(err, ErrOutOfRange) || !strings.HasPrefix(fe.Field, tc.field) {
				t.Fatalf("error %v, want one about %s", err, tc.field)
			}
		})
	}
}

// FuzzCPUList: no input panics, and what is accepted is made of digits and
// the list's separators only.
func FuzzCPUList(f *testing.F) {
	for _, s := range []string{"0", "0-3", "0-3,5", "0-15:2/4", "1-0", "", ",", "0-", "-", "0:1/2", "99999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if CPUList(s) != nil {
			return
		}
		if body := strings.TrimSuffix(s, "\n"); body == "" || strings.Trim(body, "0123456789,-:/") != "" {
			t.Fatalf("accepted %q", s)
		}
	})
}

func dev(d *api.LinuxDevice) *api.ContainerAdjustment {
	return &api.ContainerAdjustment{Linux: &api.LinuxContainerAdjustment{Devices: []*api.LinuxDevice{d}}}
}
