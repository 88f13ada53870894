// SPDX-License-Identifier: Apache-2.0

package api

// The ContainerUpdate setters, for plugins asking to change a container's
// resources (in UpdateContainersRequest, or in the updates of a
// CreateContainer, UpdateContainer or StopContainer response). Each sets
// one value, creating the sections it needs.

// SetContainerId names the container to update.
//
//nolint:revive // the reference's name
func (u *ContainerUpdate) SetContainerId(id string) {
	u.ContainerId = id
}

// SetIgnoreFailure marks the update as optional: if applying it fails, the
// operation it came with still succeeds.
func (u *ContainerUpdate) SetIgnoreFailure() {
	u.IgnoreFailure = true
}

// SetLinuxMemoryLimit sets the memory limit in bytes.
func (u *ContainerUpdate) SetLinuxMemoryLimit(value int64) {
	memoryOf(u.resources()).Limit = Int64(value)
}

// SetLinuxMemoryReservation sets the memory reservation in bytes.
func (u *ContainerUpdate) SetLinuxMemoryReservation(value int64) {
	memoryOf(u.resources()).Reservation = Int64(value)
}

// SetLinuxMemorySwap sets the memory+swap limit in bytes.
func (u *ContainerUpdate) SetLinuxMemorySwap(value int64) {
	memoryOf(u.resources()).Swap = Int64(value)
}

// SetLinuxMemoryKernel sets the kernel memory limit (deprecated in cgroups).
func (u *ContainerUpdate) SetLinuxMemoryKernel(value int64) {
	memoryOf(u.resources()).Kernel = Int64(value)
}

// SetLinuxMemoryKernelTCP sets the kernel TCP buffer memory limit.
func (u *ContainerUpdate) SetLinuxMemoryKernelTCP(value int64) {
	memoryOf(u.resources()).KernelTcp = Int64(value)
}

// SetLinuxMemorySwappiness sets the swappiness (0 to 100).
func (u *ContainerUpdate) SetLinuxMemorySwappiness(value uint64) {
	memoryOf(u.resources()).Swappiness = UInt64(value)
}

// SetLinuxMemoryDisableOomKiller disables the OOM killer.
func (u *ContainerUpdate) SetLinuxMemoryDisableOomKiller() {
	memoryOf(u.resources()).DisableOomKiller = Bool(true)
}

// SetLinuxMemoryUseHierarchy enables hierarchical memory accounting.
func (u *ContainerUpdate) SetLinuxMemoryUseHierarchy() {
	memoryOf(u.resources()).UseHierarchy = Bool(true)
}

// SetLinuxCPUShares sets the CPU shares (weight).
func (u *ContainerUpdate) SetLinuxCPUShares(value uint64) {
	cpuOf(u.resources()).Shares = UInt64(value)
}

// SetLinuxCPUQuota sets the CFS quota in microseconds.
func (u *ContainerUpdate) SetLinuxCPUQuota(value int64) {
	cpuOf(u.resources()).Quota = Int64(value)
}

// SetLinuxCPUPeriod sets the CFS period in microseconds (an int64, as the
// reference's takes; the period is unsigned).
func (u *ContainerUpdate) SetLinuxCPUPeriod(value int64) {
	cpuOf(u.resources()).Period = UInt64(value)
}

// SetLinuxCPURealtimeRuntime sets the realtime runtime in microseconds.
func (u *ContainerUpdate) SetLinuxCPURealtimeRuntime(value int64) {
	cpuOf(u.resources()).RealtimeRuntime = Int64(value)
}

// SetLinuxCPURealtimePeriod sets the realtime period in microseconds.
func (u *ContainerUpdate) SetLinuxCPURealtimePeriod(value uint64) {
	cpuOf(u.resources()).RealtimePeriod = UInt64(value)
}

// SetLinuxCPUSetCPUs sets the cpuset's CPUs, e.g. "0-3,8".
func (u *ContainerUpdate) SetLinuxCPUSetCPUs(value string) {
	cpuOf(u.resources()).Cpus = value
}

// SetLinuxCPUSetMems sets the cpuset's memory nodes.
func (u *ContainerUpdate) SetLinuxCPUSetMems(value string) {
	cpuOf(u.resources()).Mems = value
}

// SetLinuxPidLimits sets the pids limit.
func (u *ContainerUpdate) SetLinuxPidLimits(value int64) {
	pidsOf(u.resources()).Limit = value
}

// AddLinuxHugepageLimit sets the hugepage limit of pageSize (e.g. "2MB").
func (u *ContainerUpdate) AddLinuxHugepageLimit(pageSize string, value uint64) {
	addHugepageLimit(u.resources(), pageSize, value)
}

// SetLinuxBlockIOClass sets the block I/O class.
func (u *ContainerUpdate) SetLinuxBlockIOClass(value string) {
	u.resources().BlockioClass = String(value)
}

// SetLinuxRDTClass sets the RDT class.
func (u *ContainerUpdate) SetLinuxRDTClass(value string) {
	u.resources().RdtClass = String(value)
}

// AddLinuxUnified sets the unified (cgroup v2) entry key to value.
func (u *ContainerUpdate) AddLinuxUnified(key, value string) {
	addUnified(u.resources(), key, value)
}

func (u *ContainerUpdate) resources() *LinuxResources {
	if u.Linux == nil {
		u.Linux = &LinuxContainerUpdate{}
	}
	if u.Linux.Resources == nil {
		u.Linux.Resources = &LinuxResources{}
	}
	return u.Linux.Resources
}
