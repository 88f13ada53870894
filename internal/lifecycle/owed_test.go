// SPDX-License-Identifier: Apache-2.0

// Unit tests of the pods owed to a plugin and their payment.

package lifecycle

import (
	"slices"
	"testing"

	"github.com/nrikit/nrikit/api"
)

// TestOwedPodsReleased: a pod a snapshot left out is owed to the plugin
// until the plugin hears it, the plugin leaves, or a later listing leaves
// the pod out again; then nothing is owed, so events no longer pass through
// the ordering of owed pods.
func TestOwedPodsReleased(t *testing.T) {
	tests := []struct {
		name    string
		release func(t *testing.T, l *Store[*plugin], p *plugin, pod *api.PodSandbox)
	}{
		{"the runtime relays an event for it", func(t *testing.T, l *Store[*plugin], p *plugin, pod *api.PodSandbox) {
			if l.owedPod(p, api.Event_STOP_POD_SANDBOX, &api.StopPodSandboxRequest{Pod: pod}) == nil {
				t.Fatal("the owed pod was not handed over with the next event for it")
			}
			l.owing.Add(-1) // as PayOwed does once it sent it
			if l.owedPod(p, api.Event_REMOVE_POD_SANDBOX, &api.RemovePodSandboxRequest{Pod: pod}) != nil {
				t.Fatal("the owed pod was handed over twice")
			}
		}},
		{"the plugin leaves", func(_ *testing.T, l *Store[*plugin], p *plugin, _ *api.PodSandbox) { l.Forget(p) }},
		{"a later listing leaves it out", func(t *testing.T, l *Store[*plugin], _ *plugin, _ *api.PodSandbox) {
			l.Reconcile(nil, nil, l.Now())
			if len(l.pods) != 0 {
				t.Fatal("a pod two listings left out was kept")
			}
		}},
		{"it is removed", func(_ *testing.T, l *Store[*plugin], _ *plugin, pod *api.PodSandbox) { l.PodRemoved(pod) }},
		{"its RunPodSandbox comes again", func(t *testing.T, l *Store[*plugin], p *plugin, pod *api.PodSandbox) {
			req := &api.RunPodSandboxRequest{Pod: pod}
			l.Begin(api.Event_RUN_POD_SANDBOX, req, true, pod.GetId(), "")
			if !l.Admit(p, api.Event_RUN_POD_SANDBOX, req) {
				t.Fatal("the plugin owed the pod did not hear its RunPodSandbox")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := New[*plugin]()
			p := newPlugin("late")
			pod := &api.PodSandbox{Id: "p"}
			l.podStarting(pod)
			l.PodRan(pod, true)
			since := l.Now()
			pods, ctrs := l.Reconcile(nil, nil, since)
			if missed := l.Synced(p, pods, ctrs, since); len(missed) != 0 || l.owing.Load() != 1 {
				t.Fatalf("snapshot left out a pod created before the plugin arrived: told %v, %d owed; want nothing told, 1 owed", missed, l.owing.Load())
			}
			tt.release(t, l, p, pod)
			if n := l.owing.Load(); n != 0 {
				t.Fatalf("%d pods still owed", n)
			}
		})
	}
}

// owedTo makes pod owed to p: created before p joined, and left out of
// its snapshot by a listing that missed it.
func owedTo(t *testing.T, l *Store[*plugin], p *plugin, pod *api.PodSandbox) {
	t.Helper()
	runPod(l, pod)
	since := l.Now()
	pods, ctrs := l.Reconcile(nil, nil, since)
	if missed := l.Synced(p, pods, ctrs, since); len(missed) != 0 || l.owing.Load() != 1 {
		t.Fatalf("told %v, %d owed; want nothing told, 1 owed", describe(missed), l.owing.Load())
	}
}

// TestOwedPodPaidBeforeNextEvent: the plugin hears an owed pod's
// RunPodSandbox right before the next event for the pod, once; other
// plugins and other pods are not concerned.
func TestOwedPodPaidBeforeNextEvent(t *testing.T) {
	l := New[*plugin]()
	early, late := newPlugin("early"), newPlugin("late")
	pod := &api.PodSandbox{Id: "p"}
	owedTo(t, l, late, pod)
	other := &api.PodSandbox{Id: "other"}
	runPod(l, other, early, late)

	steps := []struct {
		ev   api.Event
		pod  *api.PodSandbox
		want []string
	}{
		{api.Event_UPDATE_POD_SANDBOX, other, []string{"early", "late"}},
		{api.Event_STOP_POD_SANDBOX, pod, []string{"+pod:late", "late"}},
		{api.Event_REMOVE_POD_SANDBOX, pod, []string{"late"}},
	}
	for i, s := range steps {
		if got := relay(l, s.ev, podEvent(s.ev, s.pod), early, late); !slices.Equal(got, s.want) {
			t.Fatalf("step %d (%s of %s): heard %v, want %v", i, s.ev, s.pod.Id, got, s.want)
		}
	}
	if n := l.owing.Load(); n != 0 {
		t.Fatalf("%d pods still owed", n)
	}
}

// TestOwedPodPaymentOrdered: while the owed pod is sent, the payments stay
// ordered (a concurrent turn of another event waits) and the pod still
// counts as owed (a concurrent turn does not take the fast path); after
// the send it no longer does. A container event pays the pod too.
func TestOwedPodPaymentOrdered(t *testing.T) {
	l := New[*plugin]()
	p := newPlugin("late")
	pod := &api.PodSandbox{Id: "p"}
	owedTo(t, l, p, pod)
	ctr := &api.Container{Id: "c", PodSandboxId: "p"}
	var paid []string
	l.PayOwed(p, api.Event_CREATE_CONTAINER, containerEvent(api.Event_CREATE_CONTAINER, pod, ctr), func(got *api.PodSandbox) {
		paid = append(paid, got.GetId())
		if l.paying.TryLock() {
			l.paying.Unlock()
			t.Error("payments are not ordered across the send")
		}
		if n := l.owing.Load(); n != 1 {
			t.Errorf("%d pods owed during the send, want 1", n)
		}
	})
	if !slices.Equal(paid, []string{"p"}) {
		t.Fatalf("paid %v, want [p]", paid)
	}
	if n := l.owing.Load(); n != 0 {
		t.Fatalf("%d pods owed after the send, want 0", n)
	}
}

// TestOwedPodNotPaidByItsCreation: a RunPodSandbox of an owed pod is its
// announcement itself: nothing is sent before it.
func TestOwedPodNotPaidByItsCreation(t *testing.T) {
	l := New[*plugin]()
	p := newPlugin("late")
	pod := &api.PodSandbox{Id: "p"}
	owedTo(t, l, p, pod)
	l.PayOwed(p, api.Event_RUN_POD_SANDBOX, podEvent(api.Event_RUN_POD_SANDBOX, pod), func(*api.PodSandbox) {
		t.Error("an owed pod was sent before its own RunPodSandbox")
	})
}
