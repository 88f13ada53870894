// SPDX-License-Identifier: Apache-2.0

// Unit tests of the lifecycle contract for pods and containers.

package lifecycle

import (
	"slices"
	"testing"

	"github.com/nrikit/nrikit/api"
)

// TestPodHeardOnceInOrder: a plugin hears of a pod once as created, then at
// most one stop and one remove, in that order, and nothing after the
// remove, whatever the runtime relays.
func TestPodHeardOnceInOrder(t *testing.T) {
	const (
		run    = api.Event_RUN_POD_SANDBOX
		update = api.Event_UPDATE_POD_SANDBOX
		stop   = api.Event_STOP_POD_SANDBOX
		remove = api.Event_REMOVE_POD_SANDBOX
	)
	tests := []struct {
		name   string
		events []api.Event
		heard  []bool
	}{
		{"in order", []api.Event{run, update, stop, remove}, []bool{true, true, true, true}},
		{"created twice", []api.Event{run, run, stop}, []bool{true, false, true}},
		{"stopped twice", []api.Event{run, stop, stop, remove}, []bool{true, true, false, true}},
		{"removed without a stop", []api.Event{run, remove, stop}, []bool{true, true, false}},
		{"events after the remove", []api.Event{run, stop, remove, update, stop, remove, run}, []bool{true, true, true, false, false, false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := New[*plugin]()
			p := newPlugin("a")
			pod := &api.PodSandbox{Id: "p"}
			for i, ev := range tt.events {
				heard := len(relay(l, ev, podEvent(ev, pod), p)) == 1
				if heard != tt.heard[i] {
					t.Fatalf("event %d (%s): heard %v, want %v", i, ev, heard, tt.heard[i])
				}
			}
		})
	}
}

// TestPodPredatingTheStore: a pod the store never saw created nor listed
// existed before it: every plugin is taken to know it from its snapshot,
// and hears its teardown once.
func TestPodPredatingTheStore(t *testing.T) {
	l := New[*plugin]()
	p := newPlugin("a")
	pod := &api.PodSandbox{Id: "old"}
	steps := []struct {
		ev   api.Event
		want []string
	}{
		{api.Event_STOP_POD_SANDBOX, []string{"a"}},
		{api.Event_STOP_POD_SANDBOX, nil},
		{api.Event_REMOVE_POD_SANDBOX, []string{"a"}},
	}
	for i, s := range steps {
		if got := relay(l, s.ev, podEvent(s.ev, pod), p); !slices.Equal(got, s.want) {
			t.Fatalf("step %d (%s): heard by %v, want %v", i, s.ev, got, s.want)
		}
	}
	if got := relay(l, api.Event_RUN_POD_SANDBOX, podEvent(api.Event_RUN_POD_SANDBOX, pod), p); got != nil {
		t.Fatalf("a removed pod's creation was relayed to %v", got)
	}
}

// TestContainerWithinItsPodsLife: a plugin hears of a container only
// within its pod's life as it saw it: not before it heard the pod's
// creation, not after it heard the pod's removal; and of the container
// itself once as created, then at most one stop and one remove.
func TestContainerWithinItsPodsLife(t *testing.T) {
	l := New[*plugin]()
	early, late := newPlugin("early"), newPlugin("late")
	pod := &api.PodSandbox{Id: "p"}
	ctr := &api.Container{Id: "c", PodSandboxId: "p"}
	runPod(l, pod, early) // late has not joined yet
	steps := []struct {
		ev   api.Event
		want []string
	}{
		{api.Event_CREATE_CONTAINER, []string{"early"}},
		{api.Event_CREATE_CONTAINER, nil},
		{api.Event_START_CONTAINER, []string{"early"}},
		{api.Event_STOP_CONTAINER, []string{"early"}},
		{api.Event_STOP_CONTAINER, nil},
		{api.Event_REMOVE_CONTAINER, []string{"early"}},
		{api.Event_START_CONTAINER, nil},
	}
	for i, s := range steps {
		if got := relay(l, s.ev, containerEvent(s.ev, pod, ctr), early, late); !slices.Equal(got, s.want) {
			t.Fatalf("step %d (%s): heard by %v, want %v", i, s.ev, got, s.want)
		}
	}

	// A container of a pod a plugin heard removed is not relayed to it,
	// even while the pod's removal fan-out has not ended.
	other := &api.Container{Id: "c2", PodSandboxId: "p"}
	if !l.Admit(early, api.Event_REMOVE_POD_SANDBOX, podEvent(api.Event_REMOVE_POD_SANDBOX, pod)) {
		t.Fatal("the pod's removal was not admitted")
	}
	if l.Admit(early, api.Event_CREATE_CONTAINER, containerEvent(api.Event_CREATE_CONTAINER, pod, other)) {
		t.Fatal("a container was relayed after its pod's removal")
	}
	l.PodRemoved(pod)
	if got := relay(l, api.Event_CREATE_CONTAINER, containerEvent(api.Event_CREATE_CONTAINER, pod, other), early, late); got != nil {
		t.Fatalf("a removed pod's new container was relayed to %v", got)
	}
}

// TestBeginRefusesRemoved: the setup of a removed pod or container is
// refused by id; other events are not, and a request naming nothing is
// relayed without bookkeeping.
func TestBeginRefusesRemoved(t *testing.T) {
	l := New[*plugin]()
	p := newPlugin("a")
	pod := &api.PodSandbox{Id: "p"}
	ctr := &api.Container{Id: "c", PodSandboxId: "p"}
	runPod(l, pod, p)
	createContainer(l, pod, ctr, p)
	l.ContainerRemoved(ctr)
	create := containerEvent(api.Event_CREATE_CONTAINER, pod, ctr)
	if got := l.Begin(api.Event_CREATE_CONTAINER, create, true, "p", "c"); got != "c" {
		t.Fatalf("a removed container's setup: Begin = %q, want %q", got, "c")
	}
	if got := l.Begin(api.Event_STOP_CONTAINER, containerEvent(api.Event_STOP_CONTAINER, pod, ctr), false, "p", "c"); got != "" {
		t.Fatalf("a teardown was refused: Begin = %q", got)
	}
	l.PodRemoved(pod)
	if got := l.Begin(api.Event_RUN_POD_SANDBOX, podEvent(api.Event_RUN_POD_SANDBOX, pod), true, "p", ""); got != "p" {
		t.Fatalf("a removed pod's setup: Begin = %q, want %q", got, "p")
	}
	if !l.Admit(p, api.Event_UPDATE_POD_SANDBOX, &api.UpdatePodSandboxRequest{}) {
		t.Fatal("a request that names no pod was not relayed")
	}
}

// TestFailedCreationRetried: a creation whose fan-out failed is the
// runtime's to retry, and every plugin hears the retry; a creation given
// up before reaching any plugin keeps its undo from them too.
func TestFailedCreationRetried(t *testing.T) {
	l := New[*plugin]()
	p := newPlugin("a")
	pod := &api.PodSandbox{Id: "p"}
	run := podEvent(api.Event_RUN_POD_SANDBOX, pod)
	l.Begin(api.Event_RUN_POD_SANDBOX, run, true, "p", "")
	l.Admit(p, api.Event_RUN_POD_SANDBOX, run)
	l.PodRan(pod, false)
	if got := relay(l, api.Event_RUN_POD_SANDBOX, run, p); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("the retry of a failed creation was heard by %v, want [a]", got)
	}

	given := &api.PodSandbox{Id: "given-up"}
	l.PodGivenUp(given)
	for _, ev := range []api.Event{api.Event_STOP_POD_SANDBOX, api.Event_REMOVE_POD_SANDBOX} {
		if got := relay(l, ev, podEvent(ev, given), p); got != nil {
			t.Fatalf("the %s of a pod given up was heard by %v", ev, got)
		}
	}
	ctr := &api.Container{Id: "c", PodSandboxId: "p"}
	l.ContainerGivenUp(ctr)
	if got := relay(l, api.Event_STOP_CONTAINER, containerEvent(api.Event_STOP_CONTAINER, pod, ctr), p); got != nil {
		t.Fatalf("the stop of a container given up was heard by %v", got)
	}
}

// TestContainersOfInCreationOrder: a pod's containers come in the order
// they were created, whatever the maps' order.
func TestContainersOfInCreationOrder(t *testing.T) {
	l := New[*plugin]()
	pod := &api.PodSandbox{Id: "p"}
	runPod(l, pod)
	want := []string{"c5", "c1", "c4", "c2", "c3", "c0"}
	for _, id := range want {
		createContainer(l, pod, &api.Container{Id: id, PodSandboxId: "p"})
	}
	createContainer(l, &api.PodSandbox{Id: "q"}, &api.Container{Id: "other", PodSandboxId: "q"})
	var got []string
	for _, c := range l.ContainersOf(pod) {
		got = append(got, c.GetId())
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ContainersOf = %v, want %v", got, want)
	}
}

// TestHotPathDoesNotAllocate: a plugin's turn for an event of a pod and a
// container it knows allocates nothing: Begin of a non-creation, PayOwed
// while nothing is owed, Admit and the end of a stop.
func TestHotPathDoesNotAllocate(t *testing.T) {
	l := New[*plugin]()
	p := newPlugin("a")
	pod := &api.PodSandbox{Id: "p"}
	ctr := &api.Container{Id: "c", PodSandboxId: "p"}
	runPod(l, pod, p)
	createContainer(l, pod, ctr, p)
	start := containerEvent(api.Event_START_CONTAINER, pod, ctr)
	send := func(*api.PodSandbox) { t.Error("nothing is owed, yet a pod was paid") }
	if n := testing.AllocsPerRun(100, func() {
		l.Begin(api.Event_START_CONTAINER, start, false, "p", "c")
		l.PayOwed(p, api.Event_START_CONTAINER, start, send)
		l.Admit(p, api.Event_START_CONTAINER, start)
		l.ContainerStopped(ctr)
	}); n != 0 {
		t.Fatalf("%v allocations per event, want 0", n)
	}
}
