// SPDX-License-Identifier: Apache-2.0

package api

// The owner lookups a validator reads from ValidateContainerAdjustmentRequest.Owners,
// under the reference's names. Each returns the owner recorded for a field
// of a container (the "idx-name" of the plugin that set it; for OCI hooks, a
// comma-separated list of every plugin that added some; a plugin that
// removed a value is recorded with a leading '-', see IsMarkedForRemoval)
// and whether one is recorded. Compound fields (annotations, mounts, ...)
// are looked up by entry key. Nil tables and unknown containers give
// ("", false).

// ownersFor returns the table of container id, or nil.
func (o *OwningPlugins) ownersFor(id string) *FieldOwners {
	return o.GetOwners()[id]
}

// SimpleOwner returns the owner of a simple field.
func (f *FieldOwners) SimpleOwner(field Field) (string, bool) {
	owner, ok := f.GetSimple()[int32(field)]
	return owner, ok
}

// CompoundOwner returns the owner of entry key of a compound field.
func (f *FieldOwners) CompoundOwner(field Field, key string) (string, bool) {
	owner, ok := f.GetCompound()[int32(field)].GetOwners()[key]
	return owner, ok
}

// CompoundOwnerMap returns the owners of every entry of a compound field,
// by key. The map is the table's own: do not change it.
func (f *FieldOwners) CompoundOwnerMap(field Field) (map[string]string, bool) {
	c, ok := f.GetCompound()[int32(field)]
	return c.GetOwners(), ok
}

// NamespaceOwners returns the owners of container id's namespaces, by
// namespace type. The map is the table's own: do not change it.
func (o *OwningPlugins) NamespaceOwners(id string) (map[string]string, bool) {
	return o.ownersFor(id).CompoundOwnerMap(Field_Namespace)
}

// AnnotationOwner returns the owner of the Annotations entry key of container id.
func (o *OwningPlugins) AnnotationOwner(id, key string) (string, bool) {
	return o.ownersFor(id).AnnotationOwner(key)
}

// AnnotationOwner returns the owner of the Annotations entry key.
func (f *FieldOwners) AnnotationOwner(key string) (string, bool) {
	return f.CompoundOwner(Field_Annotations, key)
}

// MountOwner returns the owner of the Mounts entry destination of container id.
func (o *OwningPlugins) MountOwner(id, destination string) (string, bool) {
	return o.ownersFor(id).MountOwner(destination)
}

// MountOwner returns the owner of the Mounts entry destination.
func (f *FieldOwners) MountOwner(destination string) (string, bool) {
	return f.CompoundOwner(Field_Mounts, destination)
}

// DeviceOwner returns the owner of the Devices entry path of container id.
func (o *OwningPlugins) DeviceOwner(id, path string) (string, bool) {
	return o.ownersFor(id).DeviceOwner(path)
}

// DeviceOwner returns the owner of the Devices entry path.
func (f *FieldOwners) DeviceOwner(path string) (string, bool) {
	return f.CompoundOwner(Field_Devices, path)
}

// CdiDeviceOwner returns the owner of the CdiDevices entry name of container id.
func (o *OwningPlugins) CdiDeviceOwner(id, name string) (string, bool) {
	return o.ownersFor(id).CdiDeviceOwner(name)
}

// CdiDeviceOwner returns the owner of the CdiDevices entry name.
func (f *FieldOwners) CdiDeviceOwner(name string) (string, bool) {
	return f.CompoundOwner(Field_CdiDevices, name)
}

// EnvOwner returns the owner of the Env entry name of container id.
func (o *OwningPlugins) EnvOwner(id, name string) (string, bool) {
	return o.ownersFor(id).EnvOwner(name)
}

// EnvOwner returns the owner of the Env entry name.
func (f *FieldOwners) EnvOwner(name string) (string, bool) {
	return f.CompoundOwner(Field_Env, name)
}

// HooksOwner returns the owner of the OciHooks field of container id.
func (o *OwningPlugins) HooksOwner(id string) (string, bool) {
	return o.ownersFor(id).HooksOwner()
}

// HooksOwner returns the owner of the OciHooks field.
func (f *FieldOwners) HooksOwner() (string, bool) {
	return f.SimpleOwner(Field_OciHooks)
}

// ArgsOwner returns the owner of the Args field of container id.
func (o *OwningPlugins) ArgsOwner(id string) (string, bool) {
	return o.ownersFor(id).ArgsOwner()
}

// ArgsOwner returns the owner of the Args field.
func (f *FieldOwners) ArgsOwner() (string, bool) {
	return f.SimpleOwner(Field_Args)
}

// MemLimitOwner returns the owner of the MemLimit field of container id.
func (o *OwningPlugins) MemLimitOwner(id string) (string, bool) {
	return o.ownersFor(id).MemLimitOwner()
}

// MemLimitOwner returns the owner of the MemLimit field.
func (f *FieldOwners) MemLimitOwner() (string, bool) {
	return f.SimpleOwner(Field_MemLimit)
}

// MemReservationOwner returns the owner of the MemReservation field of container id.
func (o *OwningPlugins) MemReservationOwner(id string) (string, bool) {
	return o.ownersFor(id).MemReservationOwner()
}

// MemReservationOwner returns the owner of the MemReservation field.
func (f *FieldOwners) MemReservationOwner() (string, bool) {
	return f.SimpleOwner(Field_MemReservation)
}

// MemSwapLimitOwner returns the owner of the MemSwapLimit field of container id.
func (o *OwningPlugins) MemSwapLimitOwner(id string) (string, bool) {
	return o.ownersFor(id).MemSwapLimitOwner()
}

// MemSwapLimitOwner returns the owner of the MemSwapLimit field.
func (f *FieldOwners) MemSwapLimitOwner() (string, bool) {
	return f.SimpleOwner(Field_MemSwapLimit)
}

// MemKernelLimitOwner returns the owner of the MemKernelLimit field of container id.
func (o *OwningPlugins) MemKernelLimitOwner(id string) (string, bool) {
	return o.ownersFor(id).MemKernelLimitOwner()
}

// MemKernelLimitOwner returns the owner of the MemKernelLimit field.
func (f *FieldOwners) MemKernelLimitOwner() (string, bool) {
	return f.SimpleOwner(Field_MemKernelLimit)
}

// MemTCPLimitOwner returns the owner of the MemTCPLimit field of container id.
func (o *OwningPlugins) MemTCPLimitOwner(id string) (string, bool) {
	return o.ownersFor(id).MemTCPLimitOwner()
}

// MemTCPLimitOwner returns the owner of the MemTCPLimit field.
func (f *FieldOwners) MemTCPLimitOwner() (string, bool) {
	return f.SimpleOwner(Field_MemTCPLimit)
}

// MemSwappinessOwner returns the owner of the MemSwappiness field of container id.
func (o *OwningPlugins) MemSwappinessOwner(id string) (string, bool) {
	return o.ownersFor(id).MemSwappinessOwner()
}

// MemSwappinessOwner returns the owner of the MemSwappiness field.
func (f *FieldOwners) MemSwappinessOwner() (string, bool) {
	return f.SimpleOwner(Field_MemSwappiness)
}

// MemDisableOomKillerOwner returns the owner of the MemDisableOomKiller field of container id.
func (o *OwningPlugins) MemDisableOomKillerOwner(id string) (string, bool) {
	return o.ownersFor(id).MemDisableOomKillerOwner()
}

// MemDisableOomKillerOwner returns the owner of the MemDisableOomKiller field.
func (f *FieldOwners) MemDisableOomKillerOwner() (string, bool) {
	return f.SimpleOwner(Field_MemDisableOomKiller)
}

// MemUseHierarchyOwner returns the owner of the MemUseHierarchy field of container id.
func (o *OwningPlugins) MemUseHierarchyOwner(id string) (string, bool) {
	return o.ownersFor(id).MemUseHierarchyOwner()
}

// MemUseHierarchyOwner returns the owner of the MemUseHierarchy field.
func (f *FieldOwners) MemUseHierarchyOwner() (string, bool) {
	return f.SimpleOwner(Field_MemUseHierarchy)
}

// CPUSharesOwner returns the owner of the CPUShares field of container id.
func (o *OwningPlugins) CPUSharesOwner(id string) (string, bool) {
	return o.ownersFor(id).CPUSharesOwner()
}

// CPUSharesOwner returns the owner of the CPUShares field.
func (f *FieldOwners) CPUSharesOwner() (string, bool) {
	return f.SimpleOwner(Field_CPUShares)
}

// CPUQuotaOwner returns the owner of the CPUQuota field of container id.
func (o *OwningPlugins) CPUQuotaOwner(id string) (string, bool) {
	return o.ownersFor(id).CPUQuotaOwner()
}

// CPUQuotaOwner returns the owner of the CPUQuota field.
func (f *FieldOwners) CPUQuotaOwner() (string, bool) {
	return f.SimpleOwner(Field_CPUQuota)
}

// CPUPeriodOwner returns the owner of the CPUPeriod field of container id.
func (o *OwningPlugins) CPUPeriodOwner(id string) (string, bool) {
	return o.ownersFor(id).CPUPeriodOwner()
}

// CPUPeriodOwner returns the owner of the CPUPeriod field.
func (f *FieldOwners) CPUPeriodOwner() (string, bool) {
	return f.SimpleOwner(Field_CPUPeriod)
}

// CPURealtimeRuntimeOwner returns the owner of the CPURealtimeRuntime field of container id.
func (o *OwningPlugins) CPURealtimeRuntimeOwner(id string) (string, bool) {
	return o.ownersFor(id).CPURealtimeRuntimeOwner()
}

// CPURealtimeRuntimeOwner returns the owner of the CPURealtimeRuntime field.
func (f *FieldOwners) CPURealtimeRuntimeOwner() (string, bool) {
	return f.SimpleOwner(Field_CPURealtimeRuntime)
}

// CPURealtimePeriodOwner returns the owner of the CPURealtimePeriod field of container id.
func (o *OwningPlugins) CPURealtimePeriodOwner(id string) (string, bool) {
	return o.ownersFor(id).CPURealtimePeriodOwner()
}

// CPURealtimePeriodOwner returns the owner of the CPURealtimePeriod field.
func (f *FieldOwners) CPURealtimePeriodOwner() (string, bool) {
	return f.SimpleOwner(Field_CPURealtimePeriod)
}

// CPUSetCPUsOwner returns the owner of the CPUSetCPUs field of container id.
func (o *OwningPlugins) CPUSetCPUsOwner(id string) (string, bool) {
	return o.ownersFor(id).CPUSetCPUsOwner()
}

// CPUSetCPUsOwner returns the owner of the CPUSetCPUs field.
func (f *FieldOwners) CPUSetCPUsOwner() (string, bool) {
	return f.SimpleOwner(Field_CPUSetCPUs)
}

// CPUSetMemsOwner returns the owner of the CPUSetMems field of container id.
func (o *OwningPlugins) CPUSetMemsOwner(id string) (string, bool) {
	return o.ownersFor(id).CPUSetMemsOwner()
}

// CPUSetMemsOwner returns the owner of the CPUSetMems field.
func (f *FieldOwners) CPUSetMemsOwner() (string, bool) {
	return f.SimpleOwner(Field_CPUSetMems)
}

// PidsLimitOwner returns the owner of the PidsLimit field of container id.
func (o *OwningPlugins) PidsLimitOwner(id string) (string, bool) {
	return o.ownersFor(id).PidsLimitOwner()
}

// PidsLimitOwner returns the owner of the PidsLimit field.
func (f *FieldOwners) PidsLimitOwner() (string, bool) {
	return f.SimpleOwner(Field_PidsLimit)
}

// HugepageLimitOwner returns the owner of the HugepageLimits entry size of container id.
func (o *OwningPlugins) HugepageLimitOwner(id, size string) (string, bool) {
	return o.ownersFor(id).HugepageLimitOwner(size)
}

// HugepageLimitOwner returns the owner of the HugepageLimits entry size.
func (f *FieldOwners) HugepageLimitOwner(size string) (string, bool) {
	return f.CompoundOwner(Field_HugepageLimits, size)
}

// BlockioClassOwner returns the owner of the BlockioClass field of container id.
func (o *OwningPlugins) BlockioClassOwner(id string) (string, bool) {
	return o.ownersFor(id).BlockioClassOwner()
}

// BlockioClassOwner returns the owner of the BlockioClass field.
func (f *FieldOwners) BlockioClassOwner() (string, bool) {
	return f.SimpleOwner(Field_BlockioClass)
}

// RdtClassOwner returns the owner of the RdtClass field of container id.
func (o *OwningPlugins) RdtClassOwner(id string) (string, bool) {
	return o.ownersFor(id).RdtClassOwner()
}

// RdtClassOwner returns the owner of the RdtClass field.
func (f *FieldOwners) RdtClassOwner() (string, bool) {
	return f.SimpleOwner(Field_RdtClass)
}

// CgroupsUnifiedOwner returns the owner of the CgroupsUnified entry key of container id.
func (o *OwningPlugins) CgroupsUnifiedOwner(id, key string) (string, bool) {
	return o.ownersFor(id).CgroupsUnifiedOwner(key)
}

// CgroupsUnifiedOwner returns the owner of the CgroupsUnified entry key.
func (f *FieldOwners) CgroupsUnifiedOwner(key string) (string, bool) {
	return f.CompoundOwner(Field_CgroupsUnified, key)
}

// CgroupsPathOwner returns the owner of the CgroupsPath field of container id.
func (o *OwningPlugins) CgroupsPathOwner(id string) (string, bool) {
	return o.ownersFor(id).CgroupsPathOwner()
}

// CgroupsPathOwner returns the owner of the CgroupsPath field.
func (f *FieldOwners) CgroupsPathOwner() (string, bool) {
	return f.SimpleOwner(Field_CgroupsPath)
}

// OomScoreAdjOwner returns the owner of the OomScoreAdj field of container id.
func (o *OwningPlugins) OomScoreAdjOwner(id string) (string, bool) {
	return o.ownersFor(id).OomScoreAdjOwner()
}

// OomScoreAdjOwner returns the owner of the OomScoreAdj field.
func (f *FieldOwners) OomScoreAdjOwner() (string, bool) {
	return f.SimpleOwner(Field_OomScoreAdj)
}

// RlimitOwner returns the owner of the Rlimits entry typ of container id.
func (o *OwningPlugins) RlimitOwner(id, typ string) (string, bool) {
	return o.ownersFor(id).RlimitOwner(typ)
}

// RlimitOwner returns the owner of the Rlimits entry typ.
func (f *FieldOwners) RlimitOwner(typ string) (string, bool) {
	return f.CompoundOwner(Field_Rlimits, typ)
}

// IOPriorityOwner returns the owner of the IoPriority field of container id.
func (o *OwningPlugins) IOPriorityOwner(id string) (string, bool) {
	return o.ownersFor(id).IOPriorityOwner()
}

// IOPriorityOwner returns the owner of the IoPriority field.
func (f *FieldOwners) IOPriorityOwner() (string, bool) {
	return f.SimpleOwner(Field_IoPriority)
}

// SeccompPolicyOwner returns the owner of the SeccompPolicy field of container id.
func (o *OwningPlugins) SeccompPolicyOwner(id string) (string, bool) {
	return o.ownersFor(id).SeccompPolicyOwner()
}

// SeccompPolicyOwner returns the owner of the SeccompPolicy field.
func (f *FieldOwners) SeccompPolicyOwner() (string, bool) {
	return f.SimpleOwner(Field_SeccompPolicy)
}

// NamespaceOwner returns the owner of the Namespace entry typ of container id.
func (o *OwningPlugins) NamespaceOwner(id, typ string) (string, bool) {
	return o.ownersFor(id).NamespaceOwner(typ)
}

// NamespaceOwner returns the owner of the Namespace entry typ.
func (f *FieldOwners) NamespaceOwner(typ string) (string, bool) {
	return f.CompoundOwner(Field_Namespace, typ)
}

// SysctlOwner returns the owner of the Sysctl entry key of container id.
func (o *OwningPlugins) SysctlOwner(id, key string) (string, bool) {
	return o.ownersFor(id).SysctlOwner(key)
}

// SysctlOwner returns the owner of the Sysctl entry key.
func (f *FieldOwners) SysctlOwner(key string) (string, bool) {
	return f.CompoundOwner(Field_Sysctl, key)
}

// LinuxNetDeviceOwner returns the owner of the LinuxNetDevices entry hostDev of container id.
func (o *OwningPlugins) LinuxNetDeviceOwner(id, hostDev string) (string, bool) {
	return o.ownersFor(id).LinuxNetDeviceOwner(hostDev)
}

// LinuxNetDeviceOwner returns the owner of the LinuxNetDevices entry hostDev.
func (f *FieldOwners) LinuxNetDeviceOwner(hostDev string) (string, bool) {
	return f.CompoundOwner(Field_LinuxNetDevices, hostDev)
}

// LinuxSchedulerOwner returns the owner of the LinuxSched field of container id.
func (o *OwningPlugins) LinuxSchedulerOwner(id string) (string, bool) {
	return o.ownersFor(id).LinuxSchedulerOwner()
}

// LinuxSchedulerOwner returns the owner of the LinuxSched field.
func (f *FieldOwners) LinuxSchedulerOwner() (string, bool) {
	return f.SimpleOwner(Field_LinuxSched)
}

// RdtClosIDOwner returns the owner of the RdtClosID field of container id.
func (o *OwningPlugins) RdtClosIDOwner(id string) (string, bool) {
	return o.ownersFor(id).RdtClosIDOwner()
}

// RdtClosIDOwner returns the owner of the RdtClosID field.
func (f *FieldOwners) RdtClosIDOwner() (string, bool) {
	return f.SimpleOwner(Field_RdtClosID)
}

// RdtSchemataOwner returns the owner of the RdtSchemata field of container id.
func (o *OwningPlugins) RdtSchemataOwner(id string) (string, bool) {
	return o.ownersFor(id).RdtSchemataOwner()
}

// RdtSchemataOwner returns the owner of the RdtSchemata field.
func (f *FieldOwners) RdtSchemataOwner() (string, bool) {
	return f.SimpleOwner(Field_RdtSchemata)
}

// RdtEnableMonitoringOwner returns the owner of the RdtEnableMonitoring field of container id.
func (o *OwningPlugins) RdtEnableMonitoringOwner(id string) (string, bool) {
	return o.ownersFor(id).RdtEnableMonitoringOwner()
}

// RdtEnableMonitoringOwner returns the owner of the RdtEnableMonitoring field.
func (f *FieldOwners) RdtEnableMonitoringOwner() (string, bool) {
	return f.SimpleOwner(Field_RdtEnableMonitoring)
}

// MemoryPolicyOwner returns the owner of the MemoryPolicy field of container id.
func (o *OwningPlugins) MemoryPolicyOwner(id string) (string, bool) {
	return o.ownersFor(id).MemoryPolicyOwner()
}

// MemoryPolicyOwner returns the owner of the MemoryPolicy field.
func (f *FieldOwners) MemoryPolicyOwner() (string, bool) {
	return f.SimpleOwner(Field_MemoryPolicy)
}
