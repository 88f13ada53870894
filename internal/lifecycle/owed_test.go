// SPDX-License-Identifier: Apache-2.0

package lifecycle

import (
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
