// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"testing"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

func TestAnnotations(t *testing.T) {
	get := func(s *rspec.Spec) any { return s.Annotations }
	runApplyCases(t, get, []applyCase{{
		name: "set adds and replaces",
		adj:  &api.ContainerAdjustment{Annotations: map[string]string{"a": "1", "io.kubernetes.cri.sandbox-id": "x"}},
		want: map[string]string{"io.kubernetes.cri.container-type": "container", "io.kubernetes.cri.sandbox-id": "x", "a": "1"},
	}, {
		name: "removal",
		adj:  &api.ContainerAdjustment{Annotations: map[string]string{"-io.kubernetes.cri.sandbox-id": ""}},
		want: map[string]string{"io.kubernetes.cri.container-type": "container"},
	}, {
		name: "removal then set replaces",
		adj:  &api.ContainerAdjustment{Annotations: map[string]string{"-a": "", "a": "2"}},
		want: map[string]string{"io.kubernetes.cri.container-type": "container", "io.kubernetes.cri.sandbox-id": "pod0", "a": "2"},
	}, {
		name:  "nil map gets created",
		start: emptySpec,
		adj:   &api.ContainerAdjustment{Annotations: map[string]string{"a": "1"}},
		want:  map[string]string{"a": "1"},
	}, {
		name:  "removal from nil map",
		start: emptySpec,
		adj:   &api.ContainerAdjustment{Annotations: map[string]string{"-a": ""}},
		want:  map[string]string(nil),
	}, {
		name: "bare marker",
		adj:  &api.ContainerAdjustment{Annotations: map[string]string{"-": ""}},
		err:  `annotation key "-" names nothing`,
	}, {
		name: "empty key",
		adj:  &api.ContainerAdjustment{Annotations: map[string]string{"": "x"}},
		err:  "names nothing",
	}})
}

func kv(k, v string) *api.KeyValue { return &api.KeyValue{Key: k, Value: v} }

func TestEnv(t *testing.T) {
	get := func(s *rspec.Spec) any { return s.Process.Env }
	runApplyCases(t, get, []applyCase{{
		name: "add",
		adj:  &api.ContainerAdjustment{Env: []*api.KeyValue{kv("A", "1")}},
		want: []string{"PATH=/usr/bin:/bin", "HOSTNAME=ctr0", "TERM=xterm", "A=1"},
	}, {
		name: "replace in place",
		adj:  &api.ContainerAdjustment{Env: []*api.KeyValue{kv("HOSTNAME", "x=y")}},
		want: []string{"PATH=/usr/bin:/bin", "HOSTNAME=x=y", "TERM=xterm"},
	}, {
		name: "replace drops duplicates",
		start: func() *rspec.Spec {
			s := sampleSpec()
			s.Process.Env = []string{"A=1", "B=2", "A=3"}
			return s
		},
		adj:  &api.ContainerAdjustment{Env: []*api.KeyValue{kv("A", "9")}},
		want: []string{"A=9", "B=2"},
	}, {
		name: "remove every entry of the name",
		start: func() *rspec.Spec {
			s := sampleSpec()
			s.Process.Env = []string{"A=1", "B=2", "A=3", "AB=4"}
			return s
		},
		adj:  &api.ContainerAdjustment{Env: []*api.KeyValue{kv("-A", "")}},
		want: []string{"B=2", "AB=4"},
	}, {
		name: "remove and set",
		adj:  &api.ContainerAdjustment{Env: []*api.KeyValue{kv("TERM", "vt100"), kv("-TERM", "")}},
		want: []string{"PATH=/usr/bin:/bin", "HOSTNAME=ctr0", "TERM=vt100"},
	}, {
		name: "remove all leaves none",
		adj:  &api.ContainerAdjustment{Env: []*api.KeyValue{kv("-PATH", ""), kv("-HOSTNAME", ""), kv("-TERM", "")}},
		want: []string(nil),
	}, {
		name:  "nil process gets created for a set",
		start: emptySpec,
		adj:   &api.ContainerAdjustment{Env: []*api.KeyValue{kv("A", "")}},
		want:  []string{"A="},
	}, {
		name:  "removal without process changes nothing",
		start: emptySpec,
		adj:   &api.ContainerAdjustment{Env: []*api.KeyValue{kv("-A", "")}},
		get:   func(s *rspec.Spec) any { return s.Process },
		want:  (*rspec.Process)(nil),
	}, {
		name: "name with =",
		adj:  &api.ContainerAdjustment{Env: []*api.KeyValue{kv("A=B", "1")}},
		err:  "contains '='",
	}, {
		name: "nil entry",
		adj:  &api.ContainerAdjustment{Env: []*api.KeyValue{nil}},
		err:  "names nothing",
	}, {
		name: "NUL in value",
		adj:  &api.ContainerAdjustment{Env: []*api.KeyValue{kv("A", "a\x00b")}},
		err:  "NUL",
	}})
}

func TestArgs(t *testing.T) {
	get := func(s *rspec.Spec) any { return s.Process.Args }
	runApplyCases(t, get, []applyCase{{
		name: "replace",
		adj:  &api.ContainerAdjustment{Args: []string{"/app", "--flag"}},
		want: []string{"/app", "--flag"},
	}, {
		name: "take-over marker dropped",
		adj:  &api.ContainerAdjustment{Args: []string{"", "/app"}},
		want: []string{"/app"},
	}, {
		name: "none keeps",
		adj:  &api.ContainerAdjustment{},
		want: []string{"/bin/sh", "-c", "sleep inf"},
	}, {
		name:  "nil process",
		start: emptySpec,
		adj:   &api.ContainerAdjustment{Args: []string{"/app"}},
		want:  []string{"/app"},
	}, {
		name: "only the marker",
		adj:  &api.ContainerAdjustment{Args: []string{""}},
		err:  "args name no program",
	}, {
		name: "empty program after the marker",
		adj:  &api.ContainerAdjustment{Args: []string{"", "", "x"}},
		err:  "args name no program",
	}})
}

func TestRlimits(t *testing.T) {
	get := func(s *rspec.Spec) any { return s.Process.Rlimits }
	rl := func(typ string, hard, soft uint64) *api.POSIXRlimit {
		return &api.POSIXRlimit{Type: typ, Hard: hard, Soft: soft}
	}
	runApplyCases(t, get, []applyCase{{
		name: "replace by type",
		adj:  &api.ContainerAdjustment{Rlimits: []*api.POSIXRlimit{rl("RLIMIT_NOFILE", 4096, 2048)}},
		want: []rspec.POSIXRlimit{{Type: "RLIMIT_NOFILE", Hard: 4096, Soft: 2048}},
	}, {
		name: "add",
		adj:  &api.ContainerAdjustment{Rlimits: []*api.POSIXRlimit{rl("RLIMIT_CORE", 0, 0)}},
		want: []rspec.POSIXRlimit{{Type: "RLIMIT_NOFILE", Hard: 1024, Soft: 1024}, {Type: "RLIMIT_CORE"}},
	}, {
		name: "later of a type wins",
		adj:  &api.ContainerAdjustment{Rlimits: []*api.POSIXRlimit{rl("RLIMIT_CORE", 1, 1), rl("RLIMIT_CORE", 2, 2)}},
		want: []rspec.POSIXRlimit{{Type: "RLIMIT_NOFILE", Hard: 1024, Soft: 1024}, {Type: "RLIMIT_CORE", Hard: 2, Soft: 2}},
	}, {
		name:  "nil process",
		start: emptySpec,
		adj:   &api.ContainerAdjustment{Rlimits: []*api.POSIXRlimit{rl("RLIMIT_NPROC", 10, 5)}},
		want:  []rspec.POSIXRlimit{{Type: "RLIMIT_NPROC", Hard: 10, Soft: 5}},
	}, {
		name: "unknown type",
		adj:  &api.ContainerAdjustment{Rlimits: []*api.POSIXRlimit{rl("RLIMIT_BOGUS", 1, 1)}},
		err:  `unknown rlimit "RLIMIT_BOGUS"`,
	}, {
		name: "removal marker is no type",
		adj:  &api.ContainerAdjustment{Rlimits: []*api.POSIXRlimit{rl("-RLIMIT_CORE", 1, 1)}},
		err:  "unknown rlimit",
	}, {
		name: "soft above hard",
		adj:  &api.ContainerAdjustment{Rlimits: []*api.POSIXRlimit{rl("RLIMIT_CORE", 1, 2)}},
		err:  "soft limit 2 above hard limit 1",
	}, {
		name: "nil entry",
		adj:  &api.ContainerAdjustment{Rlimits: []*api.POSIXRlimit{nil}},
		err:  "unknown rlimit",
	}})
}

func TestHooks(t *testing.T) {
	get := func(s *rspec.Spec) any { return s.Hooks }
	hook := func(path string) *api.Hook { return &api.Hook{Path: path, Args: []string{path, "x"}} }
	start := func() *rspec.Spec {
		s := sampleSpec()
		s.Hooks = &rspec.Hooks{CreateRuntime: []rspec.Hook{{Path: "/old"}}}
		return s
	}
	runApplyCases(t, get, []applyCase{{
		name:  "append per kind",
		start: start,
		adj: &api.ContainerAdjustment{Hooks: &api.Hooks{
			Prestart:        []*api.Hook{hook("/p")},
			CreateRuntime:   []*api.Hook{hook("/cr")},
			CreateContainer: []*api.Hook{hook("/cc")},
			StartContainer:  []*api.Hook{hook("/sc")},
			Poststart:       []*api.Hook{{Path: "/ps", Timeout: &api.OptionalInt{Value: 5}}},
			Poststop:        []*api.Hook{hook("/pst"), hook("/pst2")},
		}},
		want: &rspec.Hooks{
			Prestart:        []rspec.Hook{{Path: "/p", Args: []string{"/p", "x"}}},
			CreateRuntime:   []rspec.Hook{{Path: "/old"}, {Path: "/cr", Args: []string{"/cr", "x"}}},
			CreateContainer: []rspec.Hook{{Path: "/cc", Args: []string{"/cc", "x"}}},
			StartContainer:  []rspec.Hook{{Path: "/sc", Args: []string{"/sc", "x"}}},
			Poststart:       []rspec.Hook{{Path: "/ps", Timeout: ptr(5)}},
			Poststop:        []rspec.Hook{{Path: "/pst", Args: []string{"/pst", "x"}}, {Path: "/pst2", Args: []string{"/pst2", "x"}}},
		},
	}, {
		name: "nil hooks get created",
		adj:  &api.ContainerAdjustment{Hooks: &api.Hooks{Poststop: []*api.Hook{{Path: "/h"}}}},
		want: &rspec.Hooks{Poststop: []rspec.Hook{{Path: "/h"}}},
	}, {
		name: "empty hooks change nothing",
		adj:  &api.ContainerAdjustment{Hooks: &api.Hooks{}},
		want: (*rspec.Hooks)(nil),
	}, {
		name: "no path",
		adj:  &api.ContainerAdjustment{Hooks: &api.Hooks{Poststop: []*api.Hook{{}}}},
		err:  "hook has no path",
	}, {
		name: "nil hook",
		adj:  &api.ContainerAdjustment{Hooks: &api.Hooks{Poststop: []*api.Hook{nil}}},
		err:  "hook has no path",
	}, {
		name: "zero timeout",
		adj:  &api.ContainerAdjustment{Hooks: &api.Hooks{Poststop: []*api.Hook{{Path: "/h", Timeout: &api.OptionalInt{}}}}},
		err:  "timeout 0",
	}})
}

func TestProcessSettings(t *testing.T) {
	get := func(s *rspec.Spec) any {
		p := s.Process
		return []any{p.OOMScoreAdj, p.IOPriority, p.Scheduler}
	}
	none := []any{ptr(100), (*rspec.LinuxIOPriority)(nil), (*rspec.Scheduler)(nil)}
	runApplyCases(t, get, []applyCase{{
		name: "nothing",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{}),
		want: none,
	}, {
		name: "oom score adj",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{OomScoreAdj: &api.OptionalInt{Value: -999}}),
		want: []any{ptr(-999), (*rspec.LinuxIOPriority)(nil), (*rspec.Scheduler)(nil)},
	}, {
		name: "oom score adj out of range",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{OomScoreAdj: &api.OptionalInt{Value: 1001}}),
		err:  "oom_score_adj: 1001",
	}, {
		name: "io priority",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{IoPriority: &api.LinuxIOPriority{Class: api.IOPrioClass_IOPRIO_CLASS_BE, Priority: 4}}),
		want: []any{ptr(100), &rspec.LinuxIOPriority{Class: rspec.IOPRIO_CLASS_BE, Priority: 4}, (*rspec.Scheduler)(nil)},
	}, {
		name: "io priority class none clears",
		start: func() *rspec.Spec {
			s := sampleSpec()
			s.Process.IOPriority = &rspec.LinuxIOPriority{Class: rspec.IOPRIO_CLASS_RT}
			return s
		},
		adj:  linuxAdj(&api.LinuxContainerAdjustment{IoPriority: &api.LinuxIOPriority{}}),
		want: none,
	}, {
		name: "io priority unknown class",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{IoPriority: &api.LinuxIOPriority{Class: 9}}),
		err:  "unknown I/O priority class 9",
	}, {
		name: "io priority out of range",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{IoPriority: &api.LinuxIOPriority{Class: api.IOPrioClass_IOPRIO_CLASS_RT, Priority: 8}}),
		err:  "io_priority.priority: 8",
	}, {
		name: "scheduler",
		adj: linuxAdj(&api.LinuxContainerAdjustment{Scheduler: &api.LinuxScheduler{
			Policy: api.LinuxSchedulerPolicy_SCHED_DEADLINE, Runtime: 1, Deadline: 2, Period: 3,
			Flags: []api.LinuxSchedulerFlag{api.LinuxSchedulerFlag_SCHED_FLAG_RESET_ON_FORK, api.LinuxSchedulerFlag_SCHED_FLAG_UTIL_CLAMP_MAX},
		}}),
		want: []any{ptr(100), (*rspec.LinuxIOPriority)(nil), &rspec.Scheduler{
			Policy: rspec.SchedDeadline, Runtime: 1, Deadline: 2, Period: 3,
			Flags: []rspec.LinuxSchedulerFlag{rspec.SchedFlagResetOnFork, rspec.SchedFlagUtilClampMax},
		}},
	}, {
		name: "scheduler none clears",
		start: func() *rspec.Spec {
			s := sampleSpec()
			s.Process.Scheduler = &rspec.Scheduler{Policy: rspec.SchedBatch}
			return s
		},
		adj:  linuxAdj(&api.LinuxContainerAdjustment{Scheduler: &api.LinuxScheduler{}}),
		want: none,
	}, {
		name: "scheduler unknown policy",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{Scheduler: &api.LinuxScheduler{Policy: 42}}),
		err:  "unknown scheduler policy 42",
	}, {
		name: "scheduler unknown flag",
		adj: linuxAdj(&api.LinuxContainerAdjustment{Scheduler: &api.LinuxScheduler{
			Policy: api.LinuxSchedulerPolicy_SCHED_OTHER, Flags: []api.LinuxSchedulerFlag{7},
		}}),
		err: "unknown scheduler flag 7",
	}, {
		name: "scheduler nice out of range",
		adj:  linuxAdj(&api.LinuxContainerAdjustment{Scheduler: &api.LinuxScheduler{Policy: api.LinuxSchedulerPolicy_SCHED_OTHER, Nice: 20}}),
		err:  "scheduler.nice: 20",
	}, {
		name:  "nil process gets created",
		start: emptySpec,
		adj:   linuxAdj(&api.LinuxContainerAdjustment{OomScoreAdj: &api.OptionalInt{Value: 5}}),
		want:  []any{ptr(5), (*rspec.LinuxIOPriority)(nil), (*rspec.Scheduler)(nil)},
	}, {
		name:  "clearing without process changes nothing",
		start: emptySpec,
		adj:   linuxAdj(&api.LinuxContainerAdjustment{IoPriority: &api.LinuxIOPriority{}, Scheduler: &api.LinuxScheduler{}}),
		get:   func(s *rspec.Spec) any { return s.Process },
		want:  (*rspec.Process)(nil),
	}})
}
