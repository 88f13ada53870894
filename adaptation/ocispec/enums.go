// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// The NRI enums and their spec strings. A zero "none" value maps to "",
// which the callers turn into "clear the setting".

var ioPrioClasses = map[api.IOPrioClass]rspec.IOPriorityClass{
	api.IOPrioClass_IOPRIO_CLASS_NONE: "",
	api.IOPrioClass_IOPRIO_CLASS_RT:   rspec.IOPRIO_CLASS_RT,
	api.IOPrioClass_IOPRIO_CLASS_BE:   rspec.IOPRIO_CLASS_BE,
	api.IOPrioClass_IOPRIO_CLASS_IDLE: rspec.IOPRIO_CLASS_IDLE,
}

var schedPolicies = map[api.LinuxSchedulerPolicy]rspec.LinuxSchedulerPolicy{
	api.LinuxSchedulerPolicy_SCHED_NONE:     "",
	api.LinuxSchedulerPolicy_SCHED_OTHER:    rspec.SchedOther,
	api.LinuxSchedulerPolicy_SCHED_FIFO:     rspec.SchedFIFO,
	api.LinuxSchedulerPolicy_SCHED_RR:       rspec.SchedRR,
	api.LinuxSchedulerPolicy_SCHED_BATCH:    rspec.SchedBatch,
	api.LinuxSchedulerPolicy_SCHED_ISO:      rspec.SchedISO,
	api.LinuxSchedulerPolicy_SCHED_IDLE:     rspec.SchedIdle,
	api.LinuxSchedulerPolicy_SCHED_DEADLINE: rspec.SchedDeadline,
}

var schedFlags = map[api.LinuxSchedulerFlag]rspec.LinuxSchedulerFlag{
	api.LinuxSchedulerFlag_SCHED_FLAG_RESET_ON_FORK:  rspec.SchedFlagResetOnFork,
	api.LinuxSchedulerFlag_SCHED_FLAG_RECLAIM:        rspec.SchedFlagReclaim,
	api.LinuxSchedulerFlag_SCHED_FLAG_DL_OVERRUN:     rspec.SchedFlagDLOverrun,
	api.LinuxSchedulerFlag_SCHED_FLAG_KEEP_POLICY:    rspec.SchedFlagKeepPolicy,
	api.LinuxSchedulerFlag_SCHED_FLAG_KEEP_PARAMS:    rspec.SchedFlagKeepParams,
	api.LinuxSchedulerFlag_SCHED_FLAG_UTIL_CLAMP_MIN: rspec.SchedFlagUtilClampMin,
	api.LinuxSchedulerFlag_SCHED_FLAG_UTIL_CLAMP_MAX: rspec.SchedFlagUtilClampMax,
}

var mpolModes = map[api.MpolMode]rspec.MemoryPolicyModeType{
	api.MpolMode_MPOL_DEFAULT:             rspec.MpolDefault,
	api.MpolMode_MPOL_PREFERRED:           rspec.MpolPreferred,
	api.MpolMode_MPOL_BIND:                rspec.MpolBind,
	api.MpolMode_MPOL_INTERLEAVE:          rspec.MpolInterleave,
	api.MpolMode_MPOL_LOCAL:               rspec.MpolLocal,
	api.MpolMode_MPOL_PREFERRED_MANY:      rspec.MpolPreferredMany,
	api.MpolMode_MPOL_WEIGHTED_INTERLEAVE: rspec.MpolWeightedInterleave,
}

var mpolFlags = map[api.MpolFlag]rspec.MemoryPolicyFlagType{
	api.MpolFlag_MPOL_F_STATIC_NODES:   rspec.MpolFStaticNodes,
	api.MpolFlag_MPOL_F_RELATIVE_NODES: rspec.MpolFRelativeNodes,
	api.MpolFlag_MPOL_F_NUMA_BALANCING: rspec.MpolFNumaBalancing,
}

// enumName maps an NRI enum value to its spec string. Values outside the
// table come from newer or broken peers (protobuf keeps unknown enum
// numbers) and are invalid.
func enumName[E ~int32, S any](what string, table map[E]S, v E) (S, error) {
	s, ok := table[v]
	if !ok {
		return s, invalid("unknown %s %d", what, int32(v))
	}
	return s, nil
}

func ioPrioClass(c api.IOPrioClass) (rspec.IOPriorityClass, error) {
	return enumName("I/O priority class", ioPrioClasses, c)
}

func schedPolicy(p api.LinuxSchedulerPolicy) (rspec.LinuxSchedulerPolicy, error) {
	return enumName("scheduler policy", schedPolicies, p)
}

func schedFlag(f api.LinuxSchedulerFlag) (rspec.LinuxSchedulerFlag, error) {
	return enumName("scheduler flag", schedFlags, f)
}

func mpolMode(m api.MpolMode) (rspec.MemoryPolicyModeType, error) {
	return enumName("memory policy mode", mpolModes, m)
}

func mpolFlag(f api.MpolFlag) (rspec.MemoryPolicyFlagType, error) {
	return enumName("memory policy flag", mpolFlags, f)
}

// enumValue is the reverse lookup, for reading a spec: ok=false for a string
// NRI has no value for.
func enumValue[E comparable, S comparable](table map[E]S, s S) (E, bool) {
	for e, name := range table {
		if name == s {
			return e, true
		}
	}
	var zero E
	return zero, false
}
