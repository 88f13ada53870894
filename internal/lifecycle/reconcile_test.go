// SPDX-License-Identifier: Apache-2.0

// Unit tests of reconciling a joining plugin's snapshot with what was relayed.

package lifecycle

import (
	"slices"
	"testing"

	"github.com/nrikit/nrikit/api"
)

func ids[T interface{ GetId() string }](objs []T) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.GetId()
	}
	return out
}

// TestReconcile: the snapshot leaves out what was removed, announces as
// ready the pod of every container it carries (a pod the lists left out or
// listed as still being created), adds the containers whose creation ended
// while the runtime listed, and leaves the runtime's slices and objects as
// they were.
func TestReconcile(t *testing.T) {
	l := New[*plugin]()
	ready := api.PodSandboxState_POD_SANDBOX_READY
	live := &api.PodSandbox{Id: "live", State: ready}
	gone := &api.PodSandbox{Id: "gone", State: ready}
	hidden := &api.PodSandbox{Id: "hidden"}
	unknown := &api.PodSandbox{Id: "unknown"}
	runPod(l, gone)
	relay(l, api.Event_REMOVE_POD_SANDBOX, podEvent(api.Event_REMOVE_POD_SANDBOX, gone))
	runPod(l, hidden)
	runPod(l, unknown)
	from := l.Now()
	lateCtr := &api.Container{Id: "late-c", PodSandboxId: "live"}
	createContainer(l, live, lateCtr) // while the runtime listed

	listedUnknown := &api.PodSandbox{Id: "unknown", State: api.PodSandboxState_POD_SANDBOX_UNKNOWN}
	pods := []*api.PodSandbox{live, gone, listedUnknown}
	ctrs := []*api.Container{
		{Id: "live-c", PodSandboxId: "live"},
		{Id: "gone-c", PodSandboxId: "gone"},
		{Id: "hidden-c", PodSandboxId: "hidden"},
		{Id: "unknown-c", PodSandboxId: "unknown"},
	}
	podsBefore, ctrsBefore := slices.Clone(pods), slices.Clone(ctrs)

	gotPods, gotCtrs := l.Reconcile(pods, ctrs, from)

	if want := []string{"live", "unknown", "hidden"}; !slices.Equal(ids(gotPods), want) {
		t.Errorf("pods %v, want %v", ids(gotPods), want)
	}
	for _, p := range gotPods {
		if p.GetState() != ready {
			t.Errorf("pod %s announced as %s, want ready", p.GetId(), p.GetState())
		}
	}
	if want := []string{"live-c", "hidden-c", "unknown-c", "late-c"}; !slices.Equal(ids(gotCtrs), want) {
		t.Errorf("containers %v, want %v", ids(gotCtrs), want)
	}
	if !slices.Equal(pods, podsBefore) || !slices.Equal(ctrs, ctrsBefore) {
		t.Error("the runtime's slices were changed")
	}
	if listedUnknown.GetState() != api.PodSandboxState_POD_SANDBOX_UNKNOWN || hidden.GetState() != 0 {
		t.Error("the runtime's pods were changed")
	}
}

// TestForgottenAfterTwoListings: a pod that no event names and that a
// listing leaves out is kept, so that a runtime that stored it late still
// has plugins that know it; a second listing that leaves it out forgets
// it. One the lists carry again is kept.
func TestForgottenAfterTwoListings(t *testing.T) {
	l := New[*plugin]()
	p := newPlugin("a")
	gone := &api.PodSandbox{Id: "gone", State: api.PodSandboxState_POD_SANDBOX_READY}
	back := &api.PodSandbox{Id: "back", State: api.PodSandboxState_POD_SANDBOX_READY}
	runPod(l, gone, p)
	runPod(l, back, p)

	l.SweepListed(nil, nil, l.Now())
	if n := l.Records(); n != 2 {
		t.Fatalf("after one listing that left them out: %d records, want 2", n)
	}
	l.SweepListed([]*api.PodSandbox{back}, nil, l.Now())
	if n := l.Records(); n != 1 {
		t.Fatalf("after two listings: %d records, want 1 (the pod listed again)", n)
	}
	if got := relay(l, api.Event_STOP_POD_SANDBOX, podEvent(api.Event_STOP_POD_SANDBOX, back), p); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("the kept pod's stop was heard by %v, want [a]", got)
	}
}

// TestListingWindow: what shows a sign of life after the clock from (the
// listing's start) is the listing's to miss, and is not marked missed.
func TestListingWindow(t *testing.T) {
	l := New[*plugin]()
	pod := &api.PodSandbox{Id: "p"}
	from := l.Now()
	runPod(l, pod)
	for range 3 {
		l.SweepListed(nil, nil, from)
	}
	if n := l.Records(); n != 1 {
		t.Fatalf("a pod created within the window: %d records, want 1", n)
	}
}
