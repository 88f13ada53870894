// SPDX-License-Identifier: Apache-2.0

package main

import (
	refapi "github.com/containerd/nri/pkg/api"

	"github.com/nrikit/nrikit/api"
)

// adjustmentSteps apply the same builder call to nrikit's adjustment and to
// the reference's.
var adjustmentSteps = map[string]struct {
	ours   func(*api.ContainerAdjustment)
	theirs func(*refapi.ContainerAdjustment)
}{
	"AddAnnotation":    {func(a *api.ContainerAdjustment) { a.AddAnnotation("k", "v") }, func(a *refapi.ContainerAdjustment) { a.AddAnnotation("k", "v") }},
	"RemoveAnnotation": {func(a *api.ContainerAdjustment) { a.RemoveAnnotation("k") }, func(a *refapi.ContainerAdjustment) { a.RemoveAnnotation("k") }},
	"AddMount": {func(a *api.ContainerAdjustment) {
		a.AddMount(&api.Mount{Destination: "/d", Source: "/s", Type: "bind", Options: []string{"ro"}})
	},
		func(a *refapi.ContainerAdjustment) {
			a.AddMount(&refapi.Mount{Destination: "/d", Source: "/s", Type: "bind", Options: []string{"ro"}})
		}},
	"RemoveMount": {func(a *api.ContainerAdjustment) { a.RemoveMount("/d") }, func(a *refapi.ContainerAdjustment) { a.RemoveMount("/d") }},
	"AddEnv":      {func(a *api.ContainerAdjustment) { a.AddEnv("A", "1") }, func(a *refapi.ContainerAdjustment) { a.AddEnv("A", "1") }},
	"RemoveEnv":   {func(a *api.ContainerAdjustment) { a.RemoveEnv("A") }, func(a *refapi.ContainerAdjustment) { a.RemoveEnv("A") }},
	"SetArgs":     {func(a *api.ContainerAdjustment) { a.SetArgs([]string{"x", "y"}) }, func(a *refapi.ContainerAdjustment) { a.SetArgs([]string{"x", "y"}) }},
	"UpdateArgs":  {func(a *api.ContainerAdjustment) { a.UpdateArgs([]string{"x"}) }, func(a *refapi.ContainerAdjustment) { a.UpdateArgs([]string{"x"}) }},
	"AddHooks": {func(a *api.ContainerAdjustment) {
		a.AddHooks(&api.Hooks{CreateRuntime: []*api.Hook{{Path: "/h"}}, Poststop: []*api.Hook{{Path: "/p"}}})
	}, func(a *refapi.ContainerAdjustment) {
		a.AddHooks(&refapi.Hooks{CreateRuntime: []*refapi.Hook{{Path: "/h"}}, Poststop: []*refapi.Hook{{Path: "/p"}}})
	}},
	"AddRlimit": {func(a *api.ContainerAdjustment) { a.AddRlimit("RLIMIT_NOFILE", 2, 1) }, func(a *refapi.ContainerAdjustment) { a.AddRlimit("RLIMIT_NOFILE", 2, 1) }},
	"AddDevice": {func(a *api.ContainerAdjustment) { a.AddDevice(&api.LinuxDevice{Path: "/dev/x", Type: "c", Major: 1}) },
		func(a *refapi.ContainerAdjustment) {
			a.AddDevice(&refapi.LinuxDevice{Path: "/dev/x", Type: "c", Major: 1})
		}},
	"RemoveDevice": {func(a *api.ContainerAdjustment) { a.RemoveDevice("/dev/x") }, func(a *refapi.ContainerAdjustment) { a.RemoveDevice("/dev/x") }},
	"AddCDIDevice": {func(a *api.ContainerAdjustment) { a.AddCDIDevice(&api.CDIDevice{Name: "vendor.com/gpu=0"}) },
		func(a *refapi.ContainerAdjustment) { a.AddCDIDevice(&refapi.CDIDevice{Name: "vendor.com/gpu=0"}) }},
	"AddOrReplaceNamespace": {func(a *api.ContainerAdjustment) {
		a.AddOrReplaceNamespace(&api.LinuxNamespace{Type: "network", Path: "/n"})
	},
		func(a *refapi.ContainerAdjustment) {
			a.AddOrReplaceNamespace(&refapi.LinuxNamespace{Type: "network", Path: "/n"})
		}},
	"RemoveNamespace": {func(a *api.ContainerAdjustment) { a.RemoveNamespace(&api.LinuxNamespace{Type: "network"}) },
		func(a *refapi.ContainerAdjustment) { a.RemoveNamespace(&refapi.LinuxNamespace{Type: "network"}) }},
	"AddLinuxNetDevice": {func(a *api.ContainerAdjustment) { a.AddLinuxNetDevice("eth1", &api.LinuxNetDevice{Name: "n1"}) },
		func(a *refapi.ContainerAdjustment) { a.AddLinuxNetDevice("eth1", &refapi.LinuxNetDevice{Name: "n1"}) }},
	"AddLinuxNetDevice nil": {func(a *api.ContainerAdjustment) { a.AddLinuxNetDevice("eth1", nil) },
		func(a *refapi.ContainerAdjustment) { a.AddLinuxNetDevice("eth1", nil) }},
	"RemoveLinuxNetDevice": {func(a *api.ContainerAdjustment) { a.RemoveLinuxNetDevice("eth1") },
		func(a *refapi.ContainerAdjustment) { a.RemoveLinuxNetDevice("eth1") }},
	"SetLinuxMemoryPolicy": {func(a *api.ContainerAdjustment) {
		a.SetLinuxMemoryPolicy(api.MpolMode_MPOL_BIND, "0-1", api.MpolFlag_MPOL_F_STATIC_NODES)
	},
		func(a *refapi.ContainerAdjustment) {
			a.SetLinuxMemoryPolicy(refapi.MpolMode_MPOL_BIND, "0-1", refapi.MpolFlag_MPOL_F_STATIC_NODES)
		}},
	"SetLinuxMemoryLimit":       {func(a *api.ContainerAdjustment) { a.SetLinuxMemoryLimit(1) }, func(a *refapi.ContainerAdjustment) { a.SetLinuxMemoryLimit(1) }},
	"SetLinuxMemoryReservation": {func(a *api.ContainerAdjustment) { a.SetLinuxMemoryReservation(2) }, func(a *refapi.ContainerAdjustment) { a.SetLinuxMemoryReservation(2) }},
	"SetLinuxMemorySwap":        {func(a *api.ContainerAdjustment) { a.SetLinuxMemorySwap(3) }, func(a *refapi.ContainerAdjustment) { a.SetLinuxMemorySwap(3) }},
	"SetLinuxMemoryKernel":      {func(a *api.ContainerAdjustment) { a.SetLinuxMemoryKernel(4) }, func(a *refapi.ContainerAdjustment) { a.SetLinuxMemoryKernel(4) }},
	"SetLinuxMemoryKernelTCP":   {func(a *api.ContainerAdjustment) { a.SetLinuxMemoryKernelTCP(5) }, func(a *refapi.ContainerAdjustment) { a.SetLinuxMemoryKernelTCP(5) }},
	"SetLinuxMemorySwappiness":  {func(a *api.ContainerAdjustment) { a.SetLinuxMemorySwappiness(6) }, func(a *refapi.ContainerAdjustment) { a.SetLinuxMemorySwappiness(6) }},
	"SetLinuxMemoryDisableOomKiller": {func(a *api.ContainerAdjustment) { a.SetLinuxMemoryDisableOomKiller() },
		func(a *refapi.ContainerAdjustment) { a.SetLinuxMemoryDisableOomKiller() }},
	"SetLinuxMemoryUseHierarchy": {func(a *api.ContainerAdjustment) { a.SetLinuxMemoryUseHierarchy() },
		func(a *refapi.ContainerAdjustment) { a.SetLinuxMemoryUseHierarchy() }},
	"SetLinuxCPUShares":          {func(a *api.ContainerAdjustment) { a.SetLinuxCPUShares(7) }, func(a *refapi.ContainerAdjustment) { a.SetLinuxCPUShares(7) }},
	"SetLinuxCPUQuota":           {func(a *api.ContainerAdjustment) { a.SetLinuxCPUQuota(8) }, func(a *refapi.ContainerAdjustment) { a.SetLinuxCPUQuota(8) }},
	"SetLinuxCPUPeriod":          {func(a *api.ContainerAdjustment) { a.SetLinuxCPUPeriod(9) }, func(a *refapi.ContainerAdjustment) { a.SetLinuxCPUPeriod(9) }},
	"SetLinuxCPURealtimeRuntime": {func(a *api.ContainerAdjustment) { a.SetLinuxCPURealtimeRuntime(10) }, func(a *refapi.ContainerAdjustment) { a.SetLinuxCPURealtimeRuntime(10) }},
	"SetLinuxCPURealtimePeriod":  {func(a *api.ContainerAdjustment) { a.SetLinuxCPURealtimePeriod(11) }, func(a *refapi.ContainerAdjustment) { a.SetLinuxCPURealtimePeriod(11) }},
	"SetLinuxCPUSetCPUs":         {func(a *api.ContainerAdjustment) { a.SetLinuxCPUSetCPUs("0-1") }, func(a *refapi.ContainerAdjustment) { a.SetLinuxCPUSetCPUs("0-1") }},
	"SetLinuxCPUSetMems":         {func(a *api.ContainerAdjustment) { a.SetLinuxCPUSetMems("0") }, func(a *refapi.ContainerAdjustment) { a.SetLinuxCPUSetMems("0") }},
	"SetLinuxPidLimits":          {func(a *api.ContainerAdjustment) { a.SetLinuxPidLimits(12) }, func(a *refapi.ContainerAdjustment) { a.SetLinuxPidLimits(12) }},
	"AddLinuxHugepageLimit": {func(a *api.ContainerAdjustment) { a.AddLinuxHugepageLimit("2MB", 13) },
		func(a *refapi.ContainerAdjustment) { a.AddLinuxHugepageLimit("2MB", 13) }},
	"SetLinuxBlockIOClass": {func(a *api.ContainerAdjustment) { a.SetLinuxBlockIOClass("b") }, func(a *refapi.ContainerAdjustment) { a.SetLinuxBlockIOClass("b") }},
	"SetLinuxRDTClass":     {func(a *api.ContainerAdjustment) { a.SetLinuxRDTClass("r") }, func(a *refapi.ContainerAdjustment) { a.SetLinuxRDTClass("r") }},
	"SetLinuxRDTClosID":    {func(a *api.ContainerAdjustment) { a.SetLinuxRDTClosID("c") }, func(a *refapi.ContainerAdjustment) { a.SetLinuxRDTClosID("c") }},
	"SetLinuxRDTSchemata": {func(a *api.ContainerAdjustment) { a.SetLinuxRDTSchemata([]string{"L3:0=f"}) },
		func(a *refapi.ContainerAdjustment) { a.SetLinuxRDTSchemata([]string{"L3:0=f"}) }},
	"SetLinuxRDTEnableMonitoring": {func(a *api.ContainerAdjustment) { a.SetLinuxRDTEnableMonitoring(true) },
		func(a *refapi.ContainerAdjustment) { a.SetLinuxRDTEnableMonitoring(true) }},
	"RemoveLinuxRDT":      {func(a *api.ContainerAdjustment) { a.RemoveLinuxRDT() }, func(a *refapi.ContainerAdjustment) { a.RemoveLinuxRDT() }},
	"AddLinuxUnified":     {func(a *api.ContainerAdjustment) { a.AddLinuxUnified("k", "v") }, func(a *refapi.ContainerAdjustment) { a.AddLinuxUnified("k", "v") }},
	"SetLinuxCgroupsPath": {func(a *api.ContainerAdjustment) { a.SetLinuxCgroupsPath("/c") }, func(a *refapi.ContainerAdjustment) { a.SetLinuxCgroupsPath("/c") }},
	"SetLinuxOomScoreAdj": {func(a *api.ContainerAdjustment) { v := -500; a.SetLinuxOomScoreAdj(&v) },
		func(a *refapi.ContainerAdjustment) { v := -500; a.SetLinuxOomScoreAdj(&v) }},
	"SetLinuxOomScoreAdj nil": {func(a *api.ContainerAdjustment) { a.SetLinuxOomScoreAdj(nil) },
		func(a *refapi.ContainerAdjustment) { a.SetLinuxOomScoreAdj(nil) }},
	"SetLinuxIOPriority": {func(a *api.ContainerAdjustment) {
		a.SetLinuxIOPriority(&api.LinuxIOPriority{Class: api.IOPrioClass_IOPRIO_CLASS_BE, Priority: 1})
	}, func(a *refapi.ContainerAdjustment) {
		a.SetLinuxIOPriority(&refapi.LinuxIOPriority{Class: refapi.IOPrioClass_IOPRIO_CLASS_BE, Priority: 1})
	}},
	"SetLinuxSeccompPolicy": {func(a *api.ContainerAdjustment) {
		a.SetLinuxSeccompPolicy(&api.LinuxSeccomp{DefaultAction: "SCMP_ACT_LOG"})
	},
		func(a *refapi.ContainerAdjustment) {
			a.SetLinuxSeccompPolicy(&refapi.LinuxSeccomp{DefaultAction: "SCMP_ACT_LOG"})
		}},
	"SetLinuxSysctl": {func(a *api.ContainerAdjustment) { a.SetLinuxSysctl("net.x", "1") }, func(a *refapi.ContainerAdjustment) { a.SetLinuxSysctl("net.x", "1") }},
	"SetLinuxScheduler": {func(a *api.ContainerAdjustment) {
		a.SetLinuxScheduler(&api.LinuxScheduler{Policy: api.LinuxSchedulerPolicy_SCHED_RR, Priority: 3})
	}, func(a *refapi.ContainerAdjustment) {
		a.SetLinuxScheduler(&refapi.LinuxScheduler{Policy: refapi.LinuxSchedulerPolicy_SCHED_RR, Priority: 3})
	}},
}

// updateSteps apply the same setter to nrikit's update and the reference's.
var updateSteps = map[string]struct {
	ours   func(*api.ContainerUpdate)
	theirs func(*refapi.ContainerUpdate)
}{
	"SetContainerId":            {func(u *api.ContainerUpdate) { u.SetContainerId("c") }, func(u *refapi.ContainerUpdate) { u.SetContainerId("c") }},
	"SetIgnoreFailure":          {func(u *api.ContainerUpdate) { u.SetIgnoreFailure() }, func(u *refapi.ContainerUpdate) { u.SetIgnoreFailure() }},
	"SetLinuxMemoryLimit":       {func(u *api.ContainerUpdate) { u.SetLinuxMemoryLimit(1) }, func(u *refapi.ContainerUpdate) { u.SetLinuxMemoryLimit(1) }},
	"SetLinuxMemoryReservation": {func(u *api.ContainerUpdate) { u.SetLinuxMemoryReservation(2) }, func(u *refapi.ContainerUpdate) { u.SetLinuxMemoryReservation(2) }},
	"SetLinuxMemorySwap":        {func(u *api.ContainerUpdate) { u.SetLinuxMemorySwap(3) }, func(u *refapi.ContainerUpdate) { u.SetLinuxMemorySwap(3) }},
	"SetLinuxMemoryKernel":      {func(u *api.ContainerUpdate) { u.SetLinuxMemoryKernel(4) }, func(u *refapi.ContainerUpdate) { u.SetLinuxMemoryKernel(4) }},
	"SetLinuxMemoryKernelTCP":   {func(u *api.ContainerUpdate) { u.SetLinuxMemoryKernelTCP(5) }, func(u *refapi.ContainerUpdate) { u.SetLinuxMemoryKernelTCP(5) }},
	"SetLinuxMemorySwappiness":  {func(u *api.ContainerUpdate) { u.SetLinuxMemorySwappiness(6) }, func(u *refapi.ContainerUpdate) { u.SetLinuxMemorySwappiness(6) }},
	"SetLinuxMemoryDisableOomKiller": {func(u *api.ContainerUpdate) { u.SetLinuxMemoryDisableOomKiller() },
		func(u *refapi.ContainerUpdate) { u.SetLinuxMemoryDisableOomKiller() }},
	"SetLinuxMemoryUseHierarchy": {func(u *api.ContainerUpdate) { u.SetLinuxMemoryUseHierarchy() },
		func(u *refapi.ContainerUpdate) { u.SetLinuxMemoryUseHierarchy() }},
	"SetLinuxCPUShares":          {func(u *api.ContainerUpdate) { u.SetLinuxCPUShares(7) }, func(u *refapi.ContainerUpdate) { u.SetLinuxCPUShares(7) }},
	"SetLinuxCPUQuota":           {func(u *api.ContainerUpdate) { u.SetLinuxCPUQuota(8) }, func(u *refapi.ContainerUpdate) { u.SetLinuxCPUQuota(8) }},
	"SetLinuxCPUPeriod":          {func(u *api.ContainerUpdate) { u.SetLinuxCPUPeriod(9) }, func(u *refapi.ContainerUpdate) { u.SetLinuxCPUPeriod(9) }},
	"SetLinuxCPURealtimeRuntime": {func(u *api.ContainerUpdate) { u.SetLinuxCPURealtimeRuntime(10) }, func(u *refapi.ContainerUpdate) { u.SetLinuxCPURealtimeRuntime(10) }},
	"SetLinuxCPURealtimePeriod":  {func(u *api.ContainerUpdate) { u.SetLinuxCPURealtimePeriod(11) }, func(u *refapi.ContainerUpdate) { u.SetLinuxCPURealtimePeriod(11) }},
	"SetLinuxCPUSetCPUs":         {func(u *api.ContainerUpdate) { u.SetLinuxCPUSetCPUs("0-1") }, func(u *refapi.ContainerUpdate) { u.SetLinuxCPUSetCPUs("0-1") }},
	"SetLinuxCPUSetMems":         {func(u *api.ContainerUpdate) { u.SetLinuxCPUSetMems("0") }, func(u *refapi.ContainerUpdate) { u.SetLinuxCPUSetMems("0") }},
	"SetLinuxPidLimits":          {func(u *api.ContainerUpdate) { u.SetLinuxPidLimits(12) }, func(u *refapi.ContainerUpdate) { u.SetLinuxPidLimits(12) }},
	"AddLinuxHugepageLimit":      {func(u *api.ContainerUpdate) { u.AddLinuxHugepageLimit("2MB", 13) }, func(u *refapi.ContainerUpdate) { u.AddLinuxHugepageLimit("2MB", 13) }},
	"SetLinuxBlockIOClass":       {func(u *api.ContainerUpdate) { u.SetLinuxBlockIOClass("b") }, func(u *refapi.ContainerUpdate) { u.SetLinuxBlockIOClass("b") }},
	"SetLinuxRDTClass":           {func(u *api.ContainerUpdate) { u.SetLinuxRDTClass("r") }, func(u *refapi.ContainerUpdate) { u.SetLinuxRDTClass("r") }},
	"AddLinuxUnified":            {func(u *api.ContainerUpdate) { u.AddLinuxUnified("k", "v") }, func(u *refapi.ContainerUpdate) { u.AddLinuxUnified("k", "v") }},
}

// builders compares each builder call alone (on an empty message), then all
// of them on one message, in name order.
func builders(r *report) {
	allA, allRA := &api.ContainerAdjustment{}, &refapi.ContainerAdjustment{}
	each(r, "ContainerAdjustment", adjustmentSteps, func(s struct {
		ours   func(*api.ContainerAdjustment)
		theirs func(*refapi.ContainerAdjustment)
	}) error {
		a, ra := &api.ContainerAdjustment{}, &refapi.ContainerAdjustment{}
		s.ours(a)
		s.theirs(ra)
		s.ours(allA)
		s.theirs(allRA)
		return sameMessage(a, ra)
	})
	r.check("ContainerAdjustment", "all builders on one adjustment", sameMessage(allA, allRA))

	allU, allRU := &api.ContainerUpdate{}, &refapi.ContainerUpdate{}
	each(r, "ContainerUpdate", updateSteps, func(s struct {
		ours   func(*api.ContainerUpdate)
		theirs func(*refapi.ContainerUpdate)
	}) error {
		u, ru := &api.ContainerUpdate{}, &refapi.ContainerUpdate{}
		s.ours(u)
		s.theirs(ru)
		s.ours(allU)
		s.theirs(allRU)
		return sameMessage(u, ru)
	})
	r.check("ContainerUpdate", "all setters on one update", sameMessage(allU, allRU))
}
