// SPDX-License-Identifier: Apache-2.0

// Unit tests of what a joining plugin is told after its snapshot.

package lifecycle

import (
	"fmt"
	"slices"
	"testing"

	"github.com/nrikit/nrikit/api"
)

func describe(missed []Missed) []string {
	var out []string
	for _, m := range missed {
		s := m.Event.String() + " " + m.Pod.GetId()
		if m.Container != nil {
			s += "/" + m.Container.GetId()
		}
		out = append(out, s)
	}
	return out
}

// TestSyncedMissedPodsThenStops: a joining plugin is told the pods whose
// creation ended while the runtime listed and that its snapshot left out, in
// creation order, then the stops relayed since the listing began of what it
// knows, in the order they happened; once only.
func TestSyncedMissedPodsThenStops(t *testing.T) {
	l := New[*plugin]()
	early, late := newPlugin("early"), newPlugin("late")
	ready := api.PodSandboxState_POD_SANDBOX_READY
	listed := &api.PodSandbox{Id: "listed", State: ready}
	ctr := &api.Container{Id: "c", PodSandboxId: "listed"}
	runPod(l, listed, early)
	createContainer(l, listed, ctr, early)

	since := l.Now() // the runtime's SyncFn is called
	var want []string
	for i := range 6 {
		pod := &api.PodSandbox{Id: fmt.Sprintf("new-%d", 5-i)}
		runPod(l, pod, early)
		want = append(want, "RUN_POD_SANDBOX "+pod.Id)
	}
	relay(l, api.Event_STOP_CONTAINER, containerEvent(api.Event_STOP_CONTAINER, listed, ctr), early)
	relay(l, api.Event_STOP_POD_SANDBOX, podEvent(api.Event_STOP_POD_SANDBOX, listed), early)
	want = append(want, "STOP_CONTAINER listed/c", "STOP_POD_SANDBOX listed")

	// The runtime listed before any of that.
	pods, ctrs := l.Reconcile([]*api.PodSandbox{listed}, []*api.Container{ctr}, since)
	if got := describe(l.Synced(late, pods, ctrs, since)); !slices.Equal(got, want) {
		t.Fatalf("told after the snapshot:\n%v\nwant\n%v", got, want)
	}
	if got := l.Synced(late, pods, ctrs, since); len(got) != 0 {
		t.Fatalf("told twice: %v", describe(got))
	}
	stop := podEvent(api.Event_STOP_POD_SANDBOX, listed)
	if l.Admit(late, api.Event_STOP_POD_SANDBOX, stop) {
		t.Fatal("a stop the plugin was told after its snapshot was relayed again")
	}
	if !l.Admit(late, api.Event_REMOVE_POD_SANDBOX, podEvent(api.Event_REMOVE_POD_SANDBOX, listed)) {
		t.Fatal("the removal of a pod the plugin learned in its snapshot was not relayed")
	}
}

// TestSyncedPodStillBeingCreated: a pod whose RunPodSandbox fan-out had
// not ended when the plugin joined is not told after its snapshot: that
// fan-out reaches the plugin itself. A pod created and stopped while the
// runtime listed is told created, then stopped.
func TestSyncedPodStillBeingCreated(t *testing.T) {
	l := New[*plugin]()
	early, late := newPlugin("early"), newPlugin("late")
	since := l.Now()
	stopped := &api.PodSandbox{Id: "stopped"}
	runPod(l, stopped, early)
	relay(l, api.Event_STOP_POD_SANDBOX, podEvent(api.Event_STOP_POD_SANDBOX, stopped), early)
	starting := &api.PodSandbox{Id: "starting"}
	run := podEvent(api.Event_RUN_POD_SANDBOX, starting)
	l.Begin(api.Event_RUN_POD_SANDBOX, run, true, "starting", "")

	pods, ctrs := l.Reconcile(nil, nil, since)
	got := describe(l.Synced(late, pods, ctrs, since))
	if want := []string{"RUN_POD_SANDBOX stopped", "STOP_POD_SANDBOX stopped"}; !slices.Equal(got, want) {
		t.Fatalf("told %v, want %v", got, want)
	}
	if !l.Admit(late, api.Event_RUN_POD_SANDBOX, run) {
		t.Fatal("the pod being created does not reach the plugin that joined meanwhile")
	}
}
