// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"

	refapi "github.com/containerd/nri/pkg/api"

	"github.com/nrikit/nrikit/api"
)

type ownerLookup struct {
	ours   func(*api.OwningPlugins) (string, bool)
	theirs func(*refapi.OwningPlugins) (string, bool)
}

// ownerLookups ask each lookup about container "c1" (claimed below), and a
// few about an unknown container.
var ownerLookups = map[string]ownerLookup{
	"AnnotationOwner": {func(o *api.OwningPlugins) (string, bool) { return o.AnnotationOwner("c1", "a") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.AnnotationOwner("c1", "a") }},
	"AnnotationOwner unclaimed key": {func(o *api.OwningPlugins) (string, bool) { return o.AnnotationOwner("c1", "zz") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.AnnotationOwner("c1", "zz") }},
	"AnnotationOwner cleared": {func(o *api.OwningPlugins) (string, bool) { return o.AnnotationOwner("c1", "gone") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.AnnotationOwner("c1", "gone") }},
	"MountOwner": {func(o *api.OwningPlugins) (string, bool) { return o.MountOwner("c1", "/m") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.MountOwner("c1", "/m") }},
	"DeviceOwner": {func(o *api.OwningPlugins) (string, bool) { return o.DeviceOwner("c1", "/dev/x") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.DeviceOwner("c1", "/dev/x") }},
	"CdiDeviceOwner": {func(o *api.OwningPlugins) (string, bool) { return o.CdiDeviceOwner("c1", "v/g=0") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.CdiDeviceOwner("c1", "v/g=0") }},
	"EnvOwner": {func(o *api.OwningPlugins) (string, bool) { return o.EnvOwner("c1", "E") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.EnvOwner("c1", "E") }},
	"HooksOwner": {func(o *api.OwningPlugins) (string, bool) { return o.HooksOwner("c1") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.HooksOwner("c1") }},
	"ArgsOwner": {func(o *api.OwningPlugins) (string, bool) { return o.ArgsOwner("c1") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.ArgsOwner("c1") }},
	"MemLimitOwner": {func(o *api.OwningPlugins) (string, bool) { return o.MemLimitOwner("c1") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.MemLimitOwner("c1") }},
	"MemLimitOwner unknown container": {func(o *api.OwningPlugins) (string, bool) { return o.MemLimitOwner("nope") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.MemLimitOwner("nope") }},
	"CPUSetCPUsOwner": {func(o *api.OwningPlugins) (string, bool) { return o.CPUSetCPUsOwner("c1") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.CPUSetCPUsOwner("c1") }},
	"CPUSharesOwner unclaimed": {func(o *api.OwningPlugins) (string, bool) { return o.CPUSharesOwner("c1") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.CPUSharesOwner("c1") }},
	"PidsLimitOwner": {func(o *api.OwningPlugins) (string, bool) { return o.PidsLimitOwner("c1") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.PidsLimitOwner("c1") }},
	"HugepageLimitOwner": {func(o *api.OwningPlugins) (string, bool) { return o.HugepageLimitOwner("c1", "2MB") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.HugepageLimitOwner("c1", "2MB") }},
	"CgroupsUnifiedOwner": {func(o *api.OwningPlugins) (string, bool) { return o.CgroupsUnifiedOwner("c1", "memory.high") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.CgroupsUnifiedOwner("c1", "memory.high") }},
	"RlimitOwner": {func(o *api.OwningPlugins) (string, bool) { return o.RlimitOwner("c1", "RLIMIT_NOFILE") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.RlimitOwner("c1", "RLIMIT_NOFILE") }},
	"NamespaceOwner": {func(o *api.OwningPlugins) (string, bool) { return o.NamespaceOwner("c1", "network") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.NamespaceOwner("c1", "network") }},
	"SysctlOwner": {func(o *api.OwningPlugins) (string, bool) { return o.SysctlOwner("c1", "net.x") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.SysctlOwner("c1", "net.x") }},
	"LinuxNetDeviceOwner": {func(o *api.OwningPlugins) (string, bool) { return o.LinuxNetDeviceOwner("c1", "eth1") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.LinuxNetDeviceOwner("c1", "eth1") }},
	"SeccompPolicyOwner": {func(o *api.OwningPlugins) (string, bool) { return o.SeccompPolicyOwner("c1") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.SeccompPolicyOwner("c1") }},
	"IOPriorityOwner": {func(o *api.OwningPlugins) (string, bool) { return o.IOPriorityOwner("c1") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.IOPriorityOwner("c1") }},
	"LinuxSchedulerOwner": {func(o *api.OwningPlugins) (string, bool) { return o.LinuxSchedulerOwner("c1") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.LinuxSchedulerOwner("c1") }},
	"RdtClosIDOwner": {func(o *api.OwningPlugins) (string, bool) { return o.RdtClosIDOwner("c1") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.RdtClosIDOwner("c1") }},
	"MemoryPolicyOwner": {func(o *api.OwningPlugins) (string, bool) { return o.MemoryPolicyOwner("c1") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.MemoryPolicyOwner("c1") }},
	"OomScoreAdjOwner": {func(o *api.OwningPlugins) (string, bool) { return o.OomScoreAdjOwner("c1") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.OomScoreAdjOwner("c1") }},
	"CgroupsPathOwner": {func(o *api.OwningPlugins) (string, bool) { return o.CgroupsPathOwner("c1") },
		func(o *refapi.OwningPlugins) (string, bool) { return o.CgroupsPathOwner("c1") }},
}

// refOwners is a table built with the reference's own claim and clear calls.
func refOwners() (*refapi.OwningPlugins, error) {
	o := refapi.NewOwningPlugins()
	const id, a, b = "c1", "01-a", "02-b"
	o.ClearAnnotation(id, "gone", b)
	o.ClearMemSwapLimit(id, b)
	return o, errors.Join(
		o.ClaimAnnotation(id, "a", a), o.ClaimMount(id, "/m", a), o.ClaimDevice(id, "/dev/x", b),
		o.ClaimCdiDevice(id, "v/g=0", a), o.ClaimEnv(id, "E", b), o.ClaimHooks(id, a), o.ClaimHooks(id, b),
		o.ClaimArgs(id, a), o.ClaimMemLimit(id, a), o.ClaimCPUSetCPUs(id, b), o.ClaimPidsLimit(id, a),
		o.ClaimHugepageLimit(id, "2MB", b), o.ClaimCgroupsUnified(id, "memory.high", a),
		o.ClaimRlimit(id, "RLIMIT_NOFILE", b), o.ClaimNamespace(id, "network", a), o.ClaimSysctl(id, "net.x", b),
		o.ClaimLinuxNetDevice(id, "eth1", a), o.ClaimSeccompPolicy(id, b), o.ClaimIOPriority(id, a),
		o.ClaimLinuxScheduler(id, b), o.ClaimRdtClosID(id, a), o.ClaimMemoryPolicy(id, b),
		o.ClaimOomScoreAdj(id, a), o.ClaimCgroupsPath(id, b),
	)
}

// owners compares every owner lookup on the same table, and the namespace
// owner map.
func owners(r *report) {
	theirs, err := refOwners()
	if err != nil {
		r.check("OwningPlugins", "reference claims", err)
		return
	}
	o := fromRef(theirs, &api.OwningPlugins{})
	each(r, "OwningPlugins", ownerLookups, func(l ownerLookup) error {
		ow, ok := l.ours(o)
		tw, tok := l.theirs(theirs)
		return sameValue([]any{ow, ok}, []any{tw, tok})
	})
	on, ok := o.NamespaceOwners("c1")
	tn, tok := theirs.NamespaceOwners("c1")
	r.check("OwningPlugins", "NamespaceOwners", sameValue([]any{on, ok}, []any{tn, tok}))
	// A nil table is left out: the reference crashes on it (nrikit answers
	// ("", false); checked by nrikit's own tests).
	req := &refapi.ValidateContainerAdjustmentRequest{}
	req.AddPlugin("a", "10")
	req.AddPlugin("b", "20")
	oreq := fromRef(req, &api.ValidateContainerAdjustmentRequest{})
	r.check("ValidateContainerAdjustmentRequest", "GetPluginMap",
		sameMessageMaps(oreq.GetPluginMap(), req.GetPluginMap()))
}
