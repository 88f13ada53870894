// SPDX-License-Identifier: Apache-2.0

// Unit tests of plugins' scopes: decided once per pod, and what an out-of-scope pod never brings.

package lifecycle

import (
	"slices"
	"testing"

	"github.com/nrikit/nrikit/api"
)

// handlerScopes gives the plugins in filtered a scope: the pods whose
// runtime handler is "nvidia". It counts its decisions.
type handlerScopes struct {
	filtered  map[*plugin]bool
	decisions int
}

func (s *handlerScopes) Filtered(p *plugin) bool { return s.filtered[p] }
func (s *handlerScopes) Takes(p *plugin, pod *api.PodSandbox) bool {
	s.decisions++
	return pod.GetRuntimeHandler() == "nvidia"
}

func gpuPod(id string) *api.PodSandbox {
	return &api.PodSandbox{Id: id, RuntimeHandler: "nvidia", State: api.PodSandboxState_POD_SANDBOX_READY}
}

func cpuPod(id string) *api.PodSandbox {
	return &api.PodSandbox{Id: id, RuntimeHandler: "runc", State: api.PodSandboxState_POD_SANDBOX_READY}
}

// lifeOf relays a pod's whole life with one container, and returns who
// heard each event.
func lifeOf(l *Store[*plugin], pod *api.PodSandbox, ps ...*plugin) [][]string {
	ctr := &api.Container{Id: pod.Id + "-c", PodSandboxId: pod.Id}
	var heard [][]string
	heard = append(heard, relay(l, api.Event_RUN_POD_SANDBOX, podEvent(api.Event_RUN_POD_SANDBOX, pod), ps...))
	for _, ev := range []api.Event{api.Event_CREATE_CONTAINER, api.Event_START_CONTAINER, api.Event_STOP_CONTAINER, api.Event_REMOVE_CONTAINER} {
		heard = append(heard, relay(l, ev, containerEvent(ev, pod, ctr), ps...))
	}
	for _, ev := range []api.Event{api.Event_UPDATE_POD_SANDBOX, api.Event_STOP_POD_SANDBOX, api.Event_REMOVE_POD_SANDBOX} {
		heard = append(heard, relay(l, ev, podEvent(ev, pod), ps...))
	}
	return heard
}

func TestScopeKeepsPodsFromFilteredPlugins(t *testing.T) {
	l := New[*plugin]()
	gpu, all := newPlugin("gpu"), newPlugin("all")
	scopes := &handlerScopes{filtered: map[*plugin]bool{gpu: true}}
	l.SetScopes(scopes)

	for i, heard := range lifeOf(l, cpuPod("cpu"), gpu, all) {
		if !slices.Equal(heard, []string{"all"}) {
			t.Errorf("event %d of an out-of-scope pod reached %v, want only all", i, heard)
		}
	}
	for i, heard := range lifeOf(l, gpuPod("gpu"), gpu, all) {
		if !slices.Equal(heard, []string{"gpu", "all"}) {
			t.Errorf("event %d of an in-scope pod reached %v, want both", i, heard)
		}
	}
	if scopes.decisions != 2 {
		t.Errorf("%d scope decisions for two pods of one filtered plugin, want 2 (once per pod)", scopes.decisions)
	}
}

func TestScopeOfSnapshotAndCatchUp(t *testing.T) {
	l := New[*plugin]()
	early, gpu := newPlugin("early"), newPlugin("gpu")
	l.SetScopes(&handlerScopes{filtered: map[*plugin]bool{gpu: true}})
	listedGPU, listedCPU := gpuPod("listed-gpu"), cpuPod("listed-cpu")
	pods := []*api.PodSandbox{listedGPU, listedCPU}
	ctrs := []*api.Container{{Id: "g1", PodSandboxId: listedGPU.Id}, {Id: "c1", PodSandboxId: listedCPU.Id}}

	since := l.Now()
	runPod(l, gpuPod("new-gpu"), early) // created while the runtime listed
	runPod(l, cpuPod("new-cpu"), early)

	rp, rc := l.Reconcile(pods, ctrs, since)
	sp, sc := l.InScope(gpu, rp, rc)
	if got := snapshotIDs(sp, sc); !slices.Equal(got, []string{"listed-gpu", "g1"}) {
		t.Fatalf("snapshot in scope: %v, want the nvidia pod and its container", got)
	}
	if got := describe(l.Synced(gpu, sp, sc, since)); !slices.Equal(got, []string{"RUN_POD_SANDBOX new-gpu"}) {
		t.Errorf("caught up with %v, want only the new nvidia pod", got)
	}
	if l.Admit(gpu, api.Event_STOP_POD_SANDBOX, podEvent(api.Event_STOP_POD_SANDBOX, listedCPU)) {
		t.Error("the stop of a listed pod out of scope reached the filtered plugin")
	}
	if !l.Admit(gpu, api.Event_STOP_POD_SANDBOX, podEvent(api.Event_STOP_POD_SANDBOX, listedGPU)) {
		t.Error("the stop of a listed pod in scope did not reach the filtered plugin")
	}
	if !l.ContainerInScope(gpu, "g1") || l.ContainerInScope(gpu, "c1") || l.ContainerInScope(gpu, "unknown") {
		t.Error("ContainerInScope: want g1 only")
	}
	if !l.ContainerInScope(early, "c1") {
		t.Error("ContainerInScope refused a container to a plugin without a scope")
	}
}

func TestScopeOfPodsOlderThanNRI(t *testing.T) {
	l := New[*plugin]()
	gpu := newPlugin("gpu")
	l.SetScopes(&handlerScopes{filtered: map[*plugin]bool{gpu: true}})
	// Pods nrikit never saw created: events name them, the request carries
	// the pod.
	old := cpuPod("old-cpu")
	ctr := &api.Container{Id: "old-c", PodSandboxId: old.Id}
	if got := relay(l, api.Event_STOP_CONTAINER, containerEvent(api.Event_STOP_CONTAINER, old, ctr), gpu); len(got) != 0 {
		t.Errorf("a container of an old pod out of scope reached %v", got)
	}
	oldGPU := gpuPod("old-gpu")
	ctr = &api.Container{Id: "old-g", PodSandboxId: oldGPU.Id}
	if got := relay(l, api.Event_STOP_CONTAINER, containerEvent(api.Event_STOP_CONTAINER, oldGPU, ctr), gpu); !slices.Equal(got, []string{"gpu"}) {
		t.Errorf("a container of an old pod in scope reached %v, want gpu: it knew it from its snapshot", got)
	}
}

func TestScopeForgottenWithThePlugin(t *testing.T) {
	l := New[*plugin]()
	gpu := newPlugin("gpu")
	scopes := &handlerScopes{filtered: map[*plugin]bool{gpu: true}}
	l.SetScopes(scopes)
	runPod(l, cpuPod("p"), gpu)
	l.Forget(gpu)
	again := newPlugin("gpu") // a new instance decides anew
	scopes.filtered[again] = true
	l.Admit(again, api.Event_STOP_POD_SANDBOX, podEvent(api.Event_STOP_POD_SANDBOX, cpuPod("p")))
	if scopes.decisions != 2 {
		t.Errorf("%d decisions, want one per instance", scopes.decisions)
	}
}

func snapshotIDs(pods []*api.PodSandbox, ctrs []*api.Container) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Id)
	}
	for _, c := range ctrs {
		out = append(out, c.Id)
	}
	return out
}
