// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"

	refapi "github.com/containerd/nri/pkg/api"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

// ours turns a reference message into nrikit's, nil staying nil.
func ours[M proto.Message](theirs proto.Message, like M) M {
	if isNil(theirs) {
		var none M
		return none
	}
	return fromRef(theirs, like)
}

var refResources = map[string]*refapi.LinuxResources{
	"nil":                        nil,
	"empty":                      {},
	"partial: cpuset only":       {Cpu: &refapi.LinuxCPU{Cpus: "2-3"}},
	"partial: memory limit only": {Memory: &refapi.LinuxMemory{Limit: refapi.Int64(int64(1 << 30))}},
	"partial: pids 0":            {Pids: &refapi.LinuxPids{Limit: 0}},
	"partial: pids -1":           {Pids: &refapi.LinuxPids{Limit: -1}},
	"partial: empty unified":     {Unified: map[string]string{}},
	"full": {
		Memory: &refapi.LinuxMemory{
			Limit: refapi.Int64(int64(1 << 30)), Reservation: refapi.Int64(int64(1 << 29)), Swap: refapi.Int64(int64(1 << 31)),
			Kernel: refapi.Int64(int64(7)), KernelTcp: refapi.Int64(int64(8)), Swappiness: refapi.UInt64(uint64(60)),
			DisableOomKiller: refapi.Bool(true), UseHierarchy: refapi.Bool(false),
		},
		Cpu: &refapi.LinuxCPU{
			Shares: refapi.UInt64(uint64(1024)), Quota: refapi.Int64(int64(50000)), Period: refapi.UInt64(uint64(100000)),
			RealtimeRuntime: refapi.Int64(int64(1)), RealtimePeriod: refapi.UInt64(uint64(2)), Cpus: "0-3", Mems: "0",
		},
		Pids:           &refapi.LinuxPids{Limit: 100},
		HugepageLimits: []*refapi.HugepageLimit{{PageSize: "2MB", Limit: 1 << 21}},
		Devices: []*refapi.LinuxDeviceCgroup{
			{Allow: false, Access: "rwm"},
			{Allow: true, Type: "c", Major: refapi.Int64(int64(1)), Minor: refapi.Int64(int64(3)), Access: "rw"},
		},
		Unified:      map[string]string{"memory.high": "1G"},
		BlockioClass: refapi.String("slow"), RdtClass: refapi.String("gold"),
	},
}

var refMounts = map[string]*refapi.Mount{
	"empty":   {},
	"partial": {Destination: "/data"},
	"full":    {Destination: "/data", Type: "bind", Source: "/srv", Options: []string{"rbind", "rslave", "ro", "rshared"}},
}

var refHooks = map[string]*refapi.Hook{
	"empty":   {},
	"partial": {Path: "/bin/hook"},
	"full":    {Path: "/bin/hook", Args: []string{"hook", "x"}, Env: []string{"A=1"}, Timeout: refapi.Int(5)},
}

var refDevices = map[string]*refapi.LinuxDevice{
	"nil":     nil,
	"empty":   {},
	"partial": {Path: "/dev/null", Type: "c", Major: 1, Minor: 3},
	"full": {Path: "/dev/null", Type: "c", Major: 1, Minor: 3,
		FileMode: refapi.FileMode(uint32(0o666)), Uid: refapi.UInt32(uint32(0)), Gid: refapi.UInt32(uint32(5))},
}

var refNetDevices = map[string]map[string]*refapi.LinuxNetDevice{
	"nil":     nil,
	"empty":   {},
	"partial": {"eth1": {}},
	"full":    {"eth1": {Name: "net1"}, "eth2": {Name: "net2"}},
}

var refSyscalls = map[string][]*refapi.LinuxSyscall{
	"nil":     nil,
	"empty":   {},
	"partial": {{Names: []string{"read"}, Action: "SCMP_ACT_ALLOW"}},
	"full": {
		{Names: []string{"read", "write"}, Action: "SCMP_ACT_ALLOW"},
		{Names: []string{"kill"}, Action: "SCMP_ACT_ERRNO", ErrnoRet: refapi.UInt32(uint32(13)),
			Args: []*refapi.LinuxSeccompArg{{Index: 1, Value: 9, ValueTwo: 2, Op: "SCMP_CMP_EQ"}}},
	},
}

var refIOPriorities = map[string]*refapi.LinuxIOPriority{
	"nil":     nil,
	"empty":   {},
	"partial": {Class: refapi.IOPrioClass_IOPRIO_CLASS_BE},
	"full":    {Class: refapi.IOPrioClass_IOPRIO_CLASS_RT, Priority: 7},
}

var refSchedulers = map[string]*refapi.LinuxScheduler{
	"nil":     nil,
	"empty":   {},
	"partial": {Policy: refapi.LinuxSchedulerPolicy_SCHED_FIFO, Priority: 10},
	"full": {Policy: refapi.LinuxSchedulerPolicy_SCHED_DEADLINE, Nice: 1, Priority: 2, Runtime: 3, Deadline: 4, Period: 5,
		Flags: []refapi.LinuxSchedulerFlag{refapi.LinuxSchedulerFlag_SCHED_FLAG_RESET_ON_FORK, refapi.LinuxSchedulerFlag_SCHED_FLAG_KEEP_PARAMS}},
}

var refMemoryPolicies = map[string]*refapi.LinuxMemoryPolicy{
	"nil":     nil,
	"empty":   {},
	"partial": {Mode: refapi.MpolMode_MPOL_BIND, Nodes: "1"},
	"full": {Mode: refapi.MpolMode_MPOL_INTERLEAVE, Nodes: "0-3",
		Flags: []refapi.MpolFlag{refapi.MpolFlag_MPOL_F_RELATIVE_NODES, refapi.MpolFlag_MPOL_F_NUMA_BALANCING}},
}

var refHookSets = map[string]*refapi.Hooks{
	"empty":   {},
	"partial": {Poststop: []*refapi.Hook{{Path: "/x"}}},
	"full": {
		Prestart: []*refapi.Hook{{Path: "/a"}}, CreateRuntime: []*refapi.Hook{{Path: "/b"}},
		CreateContainer: []*refapi.Hook{{Path: "/c"}}, StartContainer: []*refapi.Hook{{Path: "/d"}},
		Poststart: []*refapi.Hook{{Path: "/e"}}, Poststop: []*refapi.Hook{{Path: "/f"}},
	},
}

// toOCI compares the conversions to spec types, and the copies.
func toOCI(r *report) {
	each(r, "LinuxResources.ToOCI", refResources, func(in *refapi.LinuxResources) error {
		return sameValue(ours(in, &api.LinuxResources{}).ToOCI(), in.ToOCI())
	})
	each(r, "LinuxResources.Copy", refResources, func(in *refapi.LinuxResources) error {
		return sameMessage(ours(in, &api.LinuxResources{}).Copy(), in.Copy())
	})
	each(r, "Mount.ToOCI", refMounts, func(in *refapi.Mount) error {
		var errs []error
		errs = append(errs, sameValue(ours(in, &api.Mount{}).ToOCI(nil), in.ToOCI(nil)))
		q1, q2 := "unchanged", "unchanged"
		errs = append(errs, sameValue(ours(in, &api.Mount{}).ToOCI(&q1), in.ToOCI(&q2)), sameValue(q1, q2))
		return errors.Join(errs...)
	})
	each(r, "Hook.ToOCI", refHooks, func(in *refapi.Hook) error {
		return sameValue(ours(in, &api.Hook{}).ToOCI(), in.ToOCI())
	})
	each(r, "LinuxDevice.ToOCI", refDevices, func(in *refapi.LinuxDevice) error {
		return sameValue(ours(in, &api.LinuxDevice{}).ToOCI(), in.ToOCI())
	})
	each(r, "ToOCILinuxNetDevices", refNetDevices, func(in map[string]*refapi.LinuxNetDevice) error {
		var o map[string]*api.LinuxNetDevice
		if in != nil {
			o = map[string]*api.LinuxNetDevice{}
			for k, d := range in {
				o[k] = ours(d, &api.LinuxNetDevice{})
			}
		}
		return sameValue(api.ToOCILinuxNetDevices(o), refapi.ToOCILinuxNetDevices(in))
	})
	each(r, "ToOCILinuxSyscalls", refSyscalls, func(in []*refapi.LinuxSyscall) error {
		return sameValue(api.ToOCILinuxSyscalls(oursList(in, &api.LinuxSyscall{})), refapi.ToOCILinuxSyscalls(in))
	})
	each(r, "ToOCILinuxSeccompArgs", refSyscalls, func(in []*refapi.LinuxSyscall) error {
		var args []*refapi.LinuxSeccompArg
		for _, s := range in {
			args = append(args, s.Args...)
		}
		return sameValue(api.ToOCILinuxSeccompArgs(oursList(args, &api.LinuxSeccompArg{})), refapi.ToOCILinuxSeccompArgs(args))
	})
	each(r, "LinuxIOPriority.ToOCI", refIOPriorities, func(in *refapi.LinuxIOPriority) error {
		return sameValue(ours(in, &api.LinuxIOPriority{}).ToOCI(), in.ToOCI())
	})
	each(r, "LinuxScheduler.ToOCI", refSchedulers, func(in *refapi.LinuxScheduler) error {
		return sameValue(ours(in, &api.LinuxScheduler{}).ToOCI(), in.ToOCI())
	})
	each(r, "LinuxMemoryPolicy.ToOCI", refMemoryPolicies, func(in *refapi.LinuxMemoryPolicy) error {
		return sameValue(ours(in, &api.LinuxMemoryPolicy{}).ToOCI(), in.ToOCI())
	})
	each(r, "KeyValue.ToOCI", map[string]*refapi.KeyValue{"empty": {}, "partial": {Key: "A"}, "full": {Key: "A", Value: "x=y"}},
		func(in *refapi.KeyValue) error {
			return sameValue(ours(in, &api.KeyValue{}).ToOCI(), in.ToOCI())
		})
	each(r, "LinuxRdt.Copy", map[string]*refapi.LinuxRdt{
		"nil": nil, "empty": {}, "partial": {ClosId: refapi.String("gold")},
		// Remove is left out: the reference's Copy drops it, nrikit's keeps it.
		"full": {ClosId: refapi.String("gold"), Schemata: refapi.RepeatedString([]string{"L3:0=f"}), EnableMonitoring: refapi.Bool(true)},
	}, func(in *refapi.LinuxRdt) error {
		return sameMessage(ours(in, &api.LinuxRdt{}).Copy(), in.Copy())
	})
	each(r, "Hooks.Append", refHookSets, func(in *refapi.Hooks) error {
		base := &refapi.Hooks{CreateRuntime: []*refapi.Hook{{Path: "/base"}}}
		o := ours(base, &api.Hooks{}).Append(ours(in, &api.Hooks{}))
		return sameMessage(o, proto.Clone(base).(*refapi.Hooks).Append(in))
	})
	each(r, "Hooks.Hooks", refHookSets, func(in *refapi.Hooks) error {
		return sameMessage(ours(in, &api.Hooks{}).Hooks(), in.Hooks())
	})
	enumsToOCI(r)
}

func oursList[M proto.Message, R proto.Message](in []R, like M) []M {
	if in == nil {
		return nil
	}
	out := make([]M, 0, len(in))
	for _, m := range in {
		out = append(out, ours(m, like))
	}
	return out
}

// enumsToOCI compares the enum conversions over every value and one
// unknown number.
func enumsToOCI(r *report) {
	for v := int32(0); v <= 8; v++ {
		name := refapi.IOPrioClass(v).String()
		r.check("IOPrioClass.ToOCI", name, sameValue(api.IOPrioClass(v).ToOCI(), refapi.IOPrioClass(v).ToOCI()))
		name = refapi.LinuxSchedulerPolicy(v).String()
		r.check("LinuxSchedulerPolicy.ToOCI", name, sameValue(api.LinuxSchedulerPolicy(v).ToOCI(), refapi.LinuxSchedulerPolicy(v).ToOCI()))
		name = refapi.MpolMode(v).String()
		r.check("MpolMode.ToOCI", name, sameValue(api.MpolMode(v).ToOCI(), refapi.MpolMode(v).ToOCI()))
	}
}
