// SPDX-License-Identifier: Apache-2.0

// Unit tests of the records listings showed gone.

package lifecycle

import (
	"fmt"
	"testing"

	"github.com/nrikit/nrikit/api"
)

// TestForgottenRecordRecalled: a container that two listings left out is
// forgotten, yet when the runtime relays its stop after all, the plugin that
// heard of its creation hears the stop, and one that joined since does
// not; a forgotten record is kept in fixed memory only.
func TestForgottenRecordRecalled(t *testing.T) {
	l := New[*plugin]()
	early, late := newPlugin("early"), newPlugin("late")
	pod := &api.PodSandbox{Id: "p"}
	ctr := &api.Container{Id: "c", PodSandboxId: "p"}
	l.podStarting(pod)
	l.Admit(early, api.Event_RUN_POD_SANDBOX, &api.RunPodSandboxRequest{Pod: pod})
	l.PodRan(pod, true)
	l.containerCreating(ctr)
	l.Admit(early, api.Event_CREATE_CONTAINER, &api.CreateContainerRequest{Pod: pod, Container: ctr})
	l.ContainerCreated(ctr, true)

	listed := []*api.PodSandbox{{Id: "p", State: api.PodSandboxState_POD_SANDBOX_READY}}
	for range 2 {
		since := l.Now()
		pods, ctrs := l.Reconcile(listed, nil, since)
		l.Synced(late, pods, ctrs, since)
	}
	if len(l.ctrs) != 0 {
		t.Fatal("a container two listings left out was kept")
	}
	stop := &api.StopContainerRequest{Pod: pod, Container: ctr}
	if !l.Admit(early, api.Event_STOP_CONTAINER, stop) {
		t.Error("the plugin that heard of the container's creation does not hear its stop")
	}
	if l.Admit(late, api.Event_STOP_CONTAINER, stop) {
		t.Error("a plugin whose snapshot left the container out hears its stop")
	}

	for i := range 3 * len(l.forgotten.ring) {
		l.forgotten.keep(&record[*plugin]{id: fmt.Sprintf("gone-%d", i)})
	}
	if n := len(l.forgotten.byID); n > len(l.forgotten.ring) {
		t.Fatalf("%d forgotten records kept, bound %d", n, len(l.forgotten.ring))
	}
}
