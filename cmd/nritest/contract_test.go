// SPDX-License-Identifier: Apache-2.0

package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/api"
)

// TestContractChecks feeds the checks wire logs that break the contract:
// nrikit never sends them (the conformance runs show it), so only made-up
// logs can show that each check would catch its breach.
func TestContractChecks(t *testing.T) {
	t.Parallel()
	steps := []cstep{
		{step: step{event: api.Event_RUN_POD_SANDBOX, id: "pod-1"}, kase: caseCreated},
		{step: step{event: api.Event_CREATE_CONTAINER, id: "ctr-1a"}, kase: caseCreated},
		{step: step{event: api.Event_REMOVE_POD_SANDBOX, id: "pod-1"}, kase: caseStopNoRemove},
	}
	run := &contractRun{
		steps:       steps,
		events:      []EventReport{{Result: resultOK}, {Result: resultOK}, {Result: resultOK}},
		active:      []map[string]bool{{"10-p": true}, {"10-p": true}, {"10-p": true}},
		live:        [][]string{{"pod-0"}, {"pod-0", "pod-1"}, {"pod-0", "pod-1", "ctr-1a"}},
		liveAtStart: []string{"pod-0"},
		objCase:     map[string]string{"pod-1": caseStopNoRemove, "ctr-1a": caseStopNoRemove, "pod-0": caseRemoveNoStop},
		podOf:       map[string]string{"ctr-1a": "pod-1"},
	}
	join := []wireCall{
		{step: -1, method: "Configure", events: api.AllEvents},
		{step: -1, method: "Synchronize", pods: []string{"pod-0"}},
	}
	pod := func(step int, ev api.Event, id string) wireCall {
		return wireCall{step: step, method: ev.Name(), event: ev, via: ViaDedicated, podID: id}
	}
	ctr := func(step int, ev api.Event, id string) wireCall {
		c := pod(step, ev, "pod-1")
		c.ctrID = id
		return c
	}
	for _, c := range []struct {
		name  string
		calls []wireCall
		kase  string
		want  string
	}{
		{"snapshot lacks", []wireCall{join[0], {step: -1, method: "Synchronize"}}, caseJoined, "snapshot lacks pod-0"},
		{"snapshot extra", []wireCall{join[0], {step: -1, method: "Synchronize", pods: []string{"pod-0", "pod-9"}}}, caseJoined, "lists pod-9, which did not exist"},
		{"created twice", append(slices.Clone(join), pod(0, api.Event_RUN_POD_SANDBOX, "pod-1"), pod(0, api.Event_RUN_POD_SANDBOX, "pod-1")), caseCreated, "RunPodSandbox of pod-1, which it already knew"},
		{"never created", append(slices.Clone(join), ctr(1, api.Event_START_CONTAINER, "ctr-1a")), caseCreated, "StartContainer of ctr-1a, which it never saw created"},
		{"missed", append(slices.Clone(join), pod(0, api.Event_RUN_POD_SANDBOX, "pod-1")), caseCreated, "never got CreateContainer of ctr-1a"},
		{"remove before stop", append(slices.Clone(join), pod(0, api.Event_RUN_POD_SANDBOX, "pod-1"), ctr(1, api.Event_CREATE_CONTAINER, "ctr-1a"),
			ctr(2, api.Event_REMOVE_CONTAINER, "ctr-1a")), caseStopNoRemove, "RemoveContainer of ctr-1a without StopContainer first"},
		{"after removal", append(slices.Clone(join), pod(0, api.Event_RUN_POD_SANDBOX, "pod-1"), ctr(1, api.Event_CREATE_CONTAINER, "ctr-1a"),
			pod(2, api.Event_STOP_POD_SANDBOX, "pod-1"), pod(2, api.Event_REMOVE_POD_SANDBOX, "pod-1"), ctr(2, api.Event_STOP_CONTAINER, "ctr-1a")),
			caseStopNoRemove, "StopContainer of ctr-1a after the removal of its pod pod-1"},
		{"never removed", append(slices.Clone(join), pod(0, api.Event_RUN_POD_SANDBOX, "pod-1"), ctr(1, api.Event_CREATE_CONTAINER, "ctr-1a")),
			caseStopNoRemove, "saw ctr-1a created but never got its RemoveContainer"},
		{"stopped twice", append(slices.Clone(join), pod(0, api.Event_RUN_POD_SANDBOX, "pod-1"), pod(2, api.Event_STOP_POD_SANDBOX, "pod-1"),
			pod(2, api.Event_STOP_POD_SANDBOX, "pod-1")), caseStopNoRemove, "StopPodSandbox of pod-1 twice"},
	} {
		f := findings{}
		run.checkInstance("10-p", &instance{calls: c.calls}, len(steps), true, f)
		if got := strings.Join(f[c.kase], "\n"); !strings.Contains(got, c.want) {
			t.Errorf("%s: %s findings %q, want %q (all: %v)", c.name, c.kase, got, c.want, f)
		}
	}
	// A log that keeps the contract has no findings.
	good := append(slices.Clone(join), pod(0, api.Event_RUN_POD_SANDBOX, "pod-1"), ctr(1, api.Event_CREATE_CONTAINER, "ctr-1a"),
		ctr(2, api.Event_STOP_CONTAINER, "ctr-1a"), ctr(2, api.Event_REMOVE_CONTAINER, "ctr-1a"),
		pod(2, api.Event_STOP_POD_SANDBOX, "pod-1"), pod(2, api.Event_REMOVE_POD_SANDBOX, "pod-1"))
	f := findings{}
	run.checkInstance("10-p", &instance{calls: good}, len(steps), false, f)
	if len(f) != 0 {
		t.Errorf("a log that keeps the contract: %v", f)
	}
}
