// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// liveStore is a runtime store whose listing lags or leads the NRI calls in
// the ways real runtimes do.
type liveStore struct {
	mu   sync.Mutex
	pods map[string]*api.PodSandbox
}

func (s *liveStore) put(pod *api.PodSandbox, st api.PodSandboxState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := proto.Clone(pod).(*api.PodSandbox)
	c.State = st
	s.pods[pod.GetId()] = c
}

func (s *liveStore) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pods, id)
}

func (s *liveStore) list() []*api.PodSandbox {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*api.PodSandbox, 0, len(s.pods))
	for _, p := range s.pods {
		out = append(out, p)
	}
	return out
}

// podClock orders what the test did, to tell which pods a plugin must know.
type podClock struct {
	now     atomic.Int64
	mu      sync.Mutex
	removed map[string]int64 // pod -> when its removal started
}

func (c *podClock) tick() int64 { return c.now.Add(1) }

// TestStressRegistrationDuringPodChurn: pods are created, stopped and
// removed from several goroutines while plugins connect, crash, reconnect
// and replace each other. Every plugin instance hears of a pod at most once,
// before its stop and removal; the plugins that stay hear of every pod that
// lived while they were connected.
func TestStressRegistrationDuringPodChurn(t *testing.T) {
	const (
		workers = 3
		churns  = 6
	)
	e := newEnv(t)
	st := &liveStore{pods: map[string]*api.PodSandbox{}}
	e.store.listPods = st.list
	e.start()
	clock := &podClock{removed: map[string]int64{}}

	stopWork := make(chan struct{})
	var workersWG sync.WaitGroup
	var pods atomic.Int64
	for w := 0; w < workers; w++ {
		workersWG.Add(1)
		go func() {
			defer workersWG.Done()
			for i := 0; ; i++ {
				last := isClosed(stopWork) // the last pod of each worker stays
				podLifecycle(t, e, st, clock, fmt.Sprintf("w%d-p%03d", w, i), i, last)
				pods.Add(1)
				if last {
					return
				}
			}
		}()
	}
	churnPlugins(t, e, 0, churns)
	e.external("50", "stay", testplugin.Config{Events: notValidating}) // joins while pods churn
	e.waitPluginsInclude("50-stay")
	joined := clock.tick()
	churnPlugins(t, e, churns, 2*churns)
	close(stopWork)
	workersWG.Wait()

	recs := e.records()
	instances := byInstance(recs)
	t.Logf("%d pods, %d plugin instances", pods.Load(), len(instances))
	for who, instance := range instances {
		checkInstance(t, who, instance)
	}
	checkStayer(t, testplugin.Of(recs, "stay"), clock, joined, st)
}

// notValidating subscribes to every lifecycle event: a validator that
// crashes fails container creation by design, which is not under test here.
var notValidating = (api.AllEvents &^ api.MaskOf(api.Event_VALIDATE_CONTAINER_ADJUSTMENT)).String()

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// podLifecycle drives one pod; keep leaves it running.
func podLifecycle(t *testing.T, e *env, st *liveStore, clock *podClock, id string, i int, keep bool) {
	ctx := context.Background()
	pod := testPod(id)
	switch i % 3 { // where the store lists the pod relative to the NRI call
	case 0:
		st.put(pod, ready)
	case 1:
		st.put(pod, unknown)
	}
	clock.tick()
	if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		t.Errorf("RunPodSandbox %s: %v", id, err)
	}
	st.put(pod, ready)
	ctr := testContainer(id+"-c", pod)
	if _, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr}); err != nil {
		t.Errorf("CreateContainer %s: %v", id, err)
	}
	if keep {
		return
	}
	_, _ = e.a.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: ctr})
	_ = e.a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: ctr})
	_ = e.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod})
	clock.mu.Lock()
	clock.removed[id] = clock.tick()
	clock.mu.Unlock()
	st.drop(id)
	_ = e.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod})
}

// churnPlugins connects plugins that crash, reconnect, and replace each
// other: cycles from to to.
func churnPlugins(t *testing.T, e *env, from, to int) {
	for i := from; i < to; i++ {
		name := fmt.Sprintf("churn%d", i%2)
		cmd := e.external(fmt.Sprintf("2%d", i%2), name, testplugin.Config{Events: notValidating})
		e.waitInstance(fmt.Sprintf("2%d-%s", i%2, name), cmd.Process.Pid)
		if i%3 != 2 { // every third instance is replaced by the next one instead
			_ = cmd.Process.Kill()
		}
	}
}

func byInstance(recs []testplugin.Record) map[string][]testplugin.Record {
	out := map[string][]testplugin.Record{}
	for _, r := range recs {
		key := fmt.Sprintf("%s/%d", r.ID(), r.PID)
		out[key] = append(out[key], r)
	}
	return out
}

// checkInstance: each pod and container announced at most once, and before
// its stop and removal, which come at most once each, in order.
func checkInstance(t *testing.T, who string, recs []testplugin.Record) {
	t.Helper()
	state := map[string]string{} // pod or container -> last step
	step := func(id, ev string) {
		prev := state[id]
		var ok bool
		switch ev {
		case "announced":
			ok = prev == ""
		case "stopped":
			ok = prev == "announced"
		case "removed":
			ok = prev == "stopped"
		default:
			ok = prev == "announced"
		}
		if !ok {
			t.Errorf("%s: %s for %s after %q", who, ev, id, prev)
		}
		if ev == "announced" || ev == "stopped" || ev == "removed" {
			state[id] = ev
		}
	}
	for _, r := range recs {
		switch r.Event {
		case "Synchronize":
			for _, id := range r.Pods {
				if !strings.HasSuffix(r.PodStates[id], "UNKNOWN") {
					step(id, "announced")
				}
			}
			for _, id := range r.Containers {
				step(id, "announced")
			}
		case "RunPodSandbox":
			step(r.Pod, "announced")
		case "StopPodSandbox":
			step(r.Pod, "stopped")
		case "RemovePodSandbox":
			step(r.Pod, "removed")
		case "CreateContainer":
			step(r.Pod, "has a container")
			step(r.Container, "announced")
		case "StopContainer":
			step(r.Container, "stopped")
		case "RemoveContainer":
			step(r.Container, "removed")
		}
	}
}

// announcedBy lists the pods and containers a record announces as created:
// a snapshot's (but for pods it lists as still being created), or the
// subject of a RunPodSandbox or CreateContainer.
func announcedBy(r testplugin.Record) []string {
	switch r.Event {
	case "Synchronize":
		var ids []string
		for _, id := range r.Pods {
			if !strings.HasSuffix(r.PodStates[id], "UNKNOWN") {
				ids = append(ids, id)
			}
		}
		return append(ids, r.Containers...)
	case "RunPodSandbox":
		return []string{r.Pod}
	case "CreateContainer":
		return []string{r.Container}
	}
	return nil
}

// checkStayer: a plugin that stayed heard of every pod not removed before it
// joined, exactly once, and of the removal of every pod removed after.
func checkStayer(t *testing.T, recs []testplugin.Record, clock *podClock, joined int64, st *liveStore) {
	t.Helper()
	announced := map[string]int{}
	removed := map[string]bool{}
	for _, r := range recs {
		for _, id := range announcedBy(r) {
			announced[id]++
		}
		if r.Event == "RemovePodSandbox" {
			removed[r.Pod] = true
		}
	}
	clock.mu.Lock()
	defer clock.mu.Unlock()
	for id, when := range clock.removed {
		if when > joined && (announced[id] != 1 || !removed[id]) {
			t.Errorf("pod %s removed after the stayer joined: announced %d times, removal seen %v", id, announced[id], removed[id])
		}
	}
	for _, pod := range st.list() {
		ctr := pod.GetId() + "-c" // podLifecycle's container, kept with its pod
		if announced[pod.GetId()] != 1 || announced[ctr] != 1 {
			t.Errorf("live pod %s and its container announced %d and %d times to the stayer",
				pod.GetId(), announced[pod.GetId()], announced[ctr])
		}
	}
}

// waitInstance waits until the plugin id is served by process pid.
func (e *env) waitInstance(id string, pid int) {
	e.t.Helper()
	deadline := time.After(waitLimit)
	for {
		changed := e.metrics.changed()
		for _, p := range e.a.Plugins() {
			if p.Plugin == id && p.PID == pid {
				return
			}
		}
		select {
		case <-changed:
		case <-deadline:
			e.t.Fatalf("plugin %s of pid %d never joined; active: %+v", id, pid, e.a.Plugins())
		}
	}
}
