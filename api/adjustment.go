// SPDX-License-Identifier: Apache-2.0

package api

// The ContainerAdjustment builders, for plugins answering CreateContainer:
// each records one change, creating the sections it needs. Removals are
// recorded with the key marked for removal (see MarkForRemoval); they take
// effect before the additions of the same adjustment. Values passed by
// pointer (mounts, devices, hooks, ...) are recorded as they are, not
// copied.

// AddAnnotation sets annotation key to value.
func (a *ContainerAdjustment) AddAnnotation(key, value string) {
	if a.Annotations == nil {
		a.Annotations = map[string]string{}
	}
	a.Annotations[key] = value
}

// RemoveAnnotation removes annotation key.
func (a *ContainerAdjustment) RemoveAnnotation(key string) {
	a.AddAnnotation(MarkForRemoval(key), "")
}

// AddMount adds m, replacing any mount at the same destination.
func (a *ContainerAdjustment) AddMount(m *Mount) {
	a.Mounts = append(a.Mounts, m)
}

// RemoveMount removes the mounts at containerPath.
func (a *ContainerAdjustment) RemoveMount(containerPath string) {
	a.Mounts = append(a.Mounts, &Mount{Destination: MarkForRemoval(containerPath)})
}

// AddEnv sets environment variable key to value.
func (a *ContainerAdjustment) AddEnv(key, value string) {
	a.Env = append(a.Env, &KeyValue{Key: key, Value: value})
}

// RemoveEnv removes environment variable key.
func (a *ContainerAdjustment) RemoveEnv(key string) {
	a.Env = append(a.Env, &KeyValue{Key: MarkForRemoval(key)})
}

// SetArgs replaces the command line with a copy of args.
func (a *ContainerAdjustment) SetArgs(args []string) {
	a.Args = DupStringSlice(args)
}

// UpdateArgs replaces the command line with args, marked (by a leading
// empty argument) as an update of one another plugin may have set.
func (a *ContainerAdjustment) UpdateArgs(args []string) {
	a.Args = append([]string{""}, args...)
}

// AddHooks appends h's OCI hooks to those of the adjustment.
func (a *ContainerAdjustment) AddHooks(h *Hooks) {
	if a.Hooks == nil {
		a.Hooks = &Hooks{}
	}
	a.Hooks.Append(h)
}

// AddRlimit sets the POSIX resource limit typ (e.g. "RLIMIT_NOFILE").
func (a *ContainerAdjustment) AddRlimit(typ string, hard, soft uint64) {
	a.Rlimits = append(a.Rlimits, &POSIXRlimit{Type: typ, Hard: hard, Soft: soft})
}

// AddDevice adds d, replacing any device at the same path.
func (a *ContainerAdjustment) AddDevice(d *LinuxDevice) {
	l := a.linux()
	l.Devices = append(l.Devices, d)
}

// RemoveDevice removes the device at path.
func (a *ContainerAdjustment) RemoveDevice(path string) {
	a.AddDevice(&LinuxDevice{Path: MarkForRemoval(path)})
}

// AddCDIDevice asks for CDI device d to be injected.
func (a *ContainerAdjustment) AddCDIDevice(d *CDIDevice) {
	a.CDIDevices = append(a.CDIDevices, d)
}

// AddOrReplaceNamespace sets namespace n, replacing one of the same type.
func (a *ContainerAdjustment) AddOrReplaceNamespace(n *LinuxNamespace) {
	l := a.linux()
	l.Namespaces = append(l.Namespaces, n)
}

// RemoveNamespace removes the namespace of n's type.
func (a *ContainerAdjustment) RemoveNamespace(n *LinuxNamespace) {
	a.AddOrReplaceNamespace(&LinuxNamespace{Type: MarkForRemoval(n.GetType())})
}

// AddLinuxNetDevice moves host device hostDev into the container as d. A
// nil d records nothing.
func (a *ContainerAdjustment) AddLinuxNetDevice(hostDev string, d *LinuxNetDevice) {
	if d == nil {
		return
	}
	a.netDevices()[hostDev] = d
}

// RemoveLinuxNetDevice removes host device hostDev from the container's
// net devices. (The entry's value is an empty device, where the
// reference's is nil; both travel the same.)
func (a *ContainerAdjustment) RemoveLinuxNetDevice(hostDev string) {
	a.netDevices()[MarkForRemoval(hostDev)] = &LinuxNetDevice{}
}

// SetLinuxMemoryPolicy sets the memory policy; flags are copied.
func (a *ContainerAdjustment) SetLinuxMemoryPolicy(mode MpolMode, nodes string, flags ...MpolFlag) {
	var fl []MpolFlag
	if flags != nil {
		fl = append(make([]MpolFlag, 0, len(flags)), flags...)
	}
	a.linux().MemoryPolicy = &LinuxMemoryPolicy{Mode: mode, Nodes: nodes, Flags: fl}
}

// SetLinuxMemoryLimit sets the memory limit in bytes.
func (a *ContainerAdjustment) SetLinuxMemoryLimit(value int64) {
	memoryOf(a.resources()).Limit = Int64(value)
}

// SetLinuxMemoryReservation sets the memory reservation in bytes.
func (a *ContainerAdjustment) SetLinuxMemoryReservation(value int64) {
	memoryOf(a.resources()).Reservation = Int64(value)
}

// SetLinuxMemorySwap sets the memory+swap limit in bytes.
func (a *ContainerAdjustment) SetLinuxMemorySwap(value int64) {
	memoryOf(a.resources()).Swap = Int64(value)
}

// SetLinuxMemoryKernel sets the kernel memory limit (deprecated in cgroups).
func (a *ContainerAdjustment) SetLinuxMemoryKernel(value int64) {
	memoryOf(a.resources()).Kernel = Int64(value)
}

// SetLinuxMemoryKernelTCP sets the kernel TCP buffer memory limit.
func (a *ContainerAdjustment) SetLinuxMemoryKernelTCP(value int64) {
	memoryOf(a.resources()).KernelTcp = Int64(value)
}

// SetLinuxMemorySwappiness sets the swappiness (0 to 100).
func (a *ContainerAdjustment) SetLinuxMemorySwappiness(value uint64) {
	memoryOf(a.resources()).Swappiness = UInt64(value)
}

// SetLinuxMemoryDisableOomKiller disables the OOM killer.
func (a *ContainerAdjustment) SetLinuxMemoryDisableOomKiller() {
	memoryOf(a.resources()).DisableOomKiller = Bool(true)
}

// SetLinuxMemoryUseHierarchy enables hierarchical memory accounting.
func (a *ContainerAdjustment) SetLinuxMemoryUseHierarchy() {
	memoryOf(a.resources()).UseHierarchy = Bool(true)
}

// SetLinuxCPUShares sets the CPU shares (weight).
func (a *ContainerAdjustment) SetLinuxCPUShares(value uint64) {
	cpuOf(a.resources()).Shares = UInt64(value)
}

// SetLinuxCPUQuota sets the CFS quota in microseconds.
func (a *ContainerAdjustment) SetLinuxCPUQuota(value int64) {
	cpuOf(a.resources()).Quota = Int64(value)
}

// SetLinuxCPUPeriod sets the CFS period in microseconds. It takes an int64,
// as the reference's does; the period is unsigned.
func (a *ContainerAdjustment) SetLinuxCPUPeriod(value int64) {
	cpuOf(a.resources()).Period = UInt64(value)
}

// SetLinuxCPURealtimeRuntime sets the realtime runtime in microseconds.
func (a *ContainerAdjustment) SetLinuxCPURealtimeRuntime(value int64) {
	cpuOf(a.resources()).RealtimeRuntime = Int64(value)
}

// SetLinuxCPURealtimePeriod sets the realtime period in microseconds.
func (a *ContainerAdjustment) SetLinuxCPURealtimePeriod(value uint64) {
	cpuOf(a.resources()).RealtimePeriod = UInt64(value)
}

// SetLinuxCPUSetCPUs sets the cpuset's CPUs, e.g. "0-3,8".
func (a *ContainerAdjustment) SetLinuxCPUSetCPUs(value string) {
	cpuOf(a.resources()).Cpus = value
}

// SetLinuxCPUSetMems sets the cpuset's memory nodes.
func (a *ContainerAdjustment) SetLinuxCPUSetMems(value string) {
	cpuOf(a.resources()).Mems = value
}

// SetLinuxPidLimits sets the pids limit.
func (a *ContainerAdjustment) SetLinuxPidLimits(value int64) {
	pidsOf(a.resources()).Limit = value
}

// AddLinuxHugepageLimit sets the hugepage limit of pageSize (e.g. "2MB").
func (a *ContainerAdjustment) AddLinuxHugepageLimit(pageSize string, value uint64) {
	addHugepageLimit(a.resources(), pageSize, value)
}

// SetLinuxBlockIOClass sets the block I/O class.
func (a *ContainerAdjustment) SetLinuxBlockIOClass(value string) {
	a.resources().BlockioClass = String(value)
}

// SetLinuxRDTClass sets the RDT class.
func (a *ContainerAdjustment) SetLinuxRDTClass(value string) {
	a.resources().RdtClass = String(value)
}

// SetLinuxRDTClosID sets the Intel RDT CLOS ID.
func (a *ContainerAdjustment) SetLinuxRDTClosID(value string) {
	a.rdt().ClosId = String(value)
}

// SetLinuxRDTSchemata sets the Intel RDT schemata lines (copied).
func (a *ContainerAdjustment) SetLinuxRDTSchemata(value []string) {
	a.rdt().Schemata = RepeatedString(value)
}

// SetLinuxRDTEnableMonitoring sets whether RDT monitoring is enabled.
func (a *ContainerAdjustment) SetLinuxRDTEnableMonitoring(value bool) {
	a.rdt().EnableMonitoring = Bool(value)
}

// RemoveLinuxRDT drops the container's Intel RDT settings before any RDT
// setting of the adjustment applies.
func (a *ContainerAdjustment) RemoveLinuxRDT() {
	a.rdt().Remove = true
}

// AddLinuxUnified sets the unified (cgroup v2) entry key to value.
func (a *ContainerAdjustment) AddLinuxUnified(key, value string) {
	addUnified(a.resources(), key, value)
}

// SetLinuxCgroupsPath sets the cgroups path.
func (a *ContainerAdjustment) SetLinuxCgroupsPath(value string) {
	a.linux().CgroupsPath = value
}

// SetLinuxOomScoreAdj sets the OOM score adjustment; nil records "unset".
func (a *ContainerAdjustment) SetLinuxOomScoreAdj(value *int) {
	a.linux().OomScoreAdj = Int(value)
}

// SetLinuxIOPriority sets the I/O priority.
func (a *ContainerAdjustment) SetLinuxIOPriority(ioprio *LinuxIOPriority) {
	a.linux().IoPriority = ioprio
}

// SetLinuxSeccompPolicy replaces the seccomp policy.
func (a *ContainerAdjustment) SetLinuxSeccompPolicy(seccomp *LinuxSeccomp) {
	a.linux().SeccompPolicy = seccomp
}

// SetLinuxSysctl sets sysctl key to value.
func (a *ContainerAdjustment) SetLinuxSysctl(key, value string) {
	l := a.linux()
	if l.Sysctl == nil {
		l.Sysctl = map[string]string{}
	}
	l.Sysctl[key] = value
}

// SetLinuxScheduler sets the process scheduler settings.
func (a *ContainerAdjustment) SetLinuxScheduler(sch *LinuxScheduler) {
	a.linux().Scheduler = sch
}

func (a *ContainerAdjustment) linux() *LinuxContainerAdjustment {
	if a.Linux == nil {
		a.Linux = &LinuxContainerAdjustment{}
	}
	return a.Linux
}

func (a *ContainerAdjustment) resources() *LinuxResources {
	l := a.linux()
	if l.Resources == nil {
		l.Resources = &LinuxResources{}
	}
	return l.Resources
}

func (a *ContainerAdjustment) rdt() *LinuxRdt {
	l := a.linux()
	if l.Rdt == nil {
		l.Rdt = &LinuxRdt{}
	}
	return l.Rdt
}

func (a *ContainerAdjustment) netDevices() map[string]*LinuxNetDevice {
	l := a.linux()
	if l.NetDevices == nil {
		l.NetDevices = map[string]*LinuxNetDevice{}
	}
	return l.NetDevices
}
