// SPDX-License-Identifier: Apache-2.0

package api

// Helpers shared by the adjustment and update builders: each returns the
// section it names, creating it (and nothing else) when missing.

func memoryOf(r *LinuxResources) *LinuxMemory {
	if r.Memory == nil {
		r.Memory = &LinuxMemory{}
	}
	return r.Memory
}

func cpuOf(r *LinuxResources) *LinuxCPU {
	if r.Cpu == nil {
		r.Cpu = &LinuxCPU{}
	}
	return r.Cpu
}

func pidsOf(r *LinuxResources) *LinuxPids {
	if r.Pids == nil {
		r.Pids = &LinuxPids{}
	}
	return r.Pids
}

func addUnified(r *LinuxResources, key, value string) {
	if r.Unified == nil {
		r.Unified = map[string]string{}
	}
	r.Unified[key] = value
}

func addHugepageLimit(r *LinuxResources, pageSize string, value uint64) {
	r.HugepageLimits = append(r.HugepageLimits, &HugepageLimit{PageSize: pageSize, Limit: value})
}
