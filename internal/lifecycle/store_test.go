// SPDX-License-Identifier: Apache-2.0

// Unit tests of the store's memory, and the tests' plugin identity.

package lifecycle

import (
	"fmt"
	"testing"

	"github.com/nrikit/nrikit/api"
)

// plugin is the tests' identity of a plugin: the store needs only ==.
type plugin struct{ name string }

func newPlugin(name string) *plugin { return &plugin{name: name} }

// TestLifecycleMemoryReleased: the bookkeeping holds only live pods and
// containers, and a bounded number of tombstones.
func TestLifecycleMemoryReleased(t *testing.T) {
	l := New[*plugin]()
	p := newPlugin("a")
	const n = 10000
	for i := 0; i < n; i++ {
		pod := &api.PodSandbox{Id: fmt.Sprintf("pod-%d", i)}
		ctr := &api.Container{Id: fmt.Sprintf("ctr-%d", i), PodSandboxId: pod.Id}
		l.podStarting(pod)
		l.Admit(p, api.Event_RUN_POD_SANDBOX, &api.RunPodSandboxRequest{Pod: pod})
		l.PodRan(pod, true)
		l.containerCreating(ctr)
		l.Admit(p, api.Event_CREATE_CONTAINER, &api.CreateContainerRequest{Pod: pod, Container: ctr})
		l.ContainerCreated(ctr, true)
		if i%2 == 0 {
			l.ContainerRemoved(ctr)
		}
		l.PodRemoved(pod)
	}
	if len(l.pods) != 0 || len(l.ctrs) != 0 || len(l.byPod) != 0 {
		t.Fatalf("after removing every pod: %d pods, %d containers, %d indexes kept", len(l.pods), len(l.ctrs), len(l.byPod))
	}
	if len(l.removed.set) > len(l.removed.ring) {
		t.Fatalf("tombstones grew to %d, bound %d", len(l.removed.set), len(l.removed.ring))
	}
	late := &api.StartContainerRequest{Pod: &api.PodSandbox{Id: fmt.Sprintf("pod-%d", n-1)}, Container: &api.Container{Id: fmt.Sprintf("ctr-%d", n-1)}}
	if l.Admit(p, api.Event_START_CONTAINER, late) {
		t.Fatal("an event for a removed pod's container was admitted")
	}
	if len(l.pods) != 0 || len(l.ctrs) != 0 {
		t.Fatal("a late event for a removed pod brought its records back")
	}
}
