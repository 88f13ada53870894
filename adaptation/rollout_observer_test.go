// SPDX-License-Identifier: Apache-2.0

// Observers (delivery = "observe") with real plugin processes: never waited for, every event once
// and in order, their replies not applied, dropped on overflow and resynchronized.

package adaptation_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// observe is the operator's setting that makes key an observer.
func observe(key string) adaptation.Option {
	return adaptation.WithPluginSettings(key, adaptation.PluginSettings{Delivery: adaptation.DeliveryObserve})
}

// waitUntil waits until cond holds, checking it again at each log line
// (every plugin call the relay makes logs one at debug level).
func (e *env) waitUntil(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.After(waitLimit)
	for {
		changed := e.logSignal.changed()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			e.dumpLog()
			e.t.Fatalf("waited in vain for %s", what)
		}
	}
}

// queueOf is the queue Status shows for plugin id, nil if none.
func queueOf(a *adaptation.Adaptation, id string) *adaptation.QueueStatus {
	for _, p := range a.Status().Plugins {
		if p.Plugin == id {
			return p.Queue
		}
	}
	return nil
}

// withinWaitLimit runs fn and fails the test if it does not return within
// waitLimit: a runtime call that waits for an observer never would.
func withinWaitLimit(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(waitLimit):
		t.Fatalf("%s did not return: the runtime waited for the observer", what)
	}
}

// An observer's log, once its queue is drained, holds every event once and
// in order: exactly what a synchronous plugin got.
func TestObserverGetsEveryEventOnceInOrder(t *testing.T) {
	e := newEnv(t, observe("10-logger"))
	e.preinstall("10", "logger", testplugin.Config{Delay: "20ms"})
	e.preinstall("20", "sync", testplugin.Config{})
	e.start()
	e.waitPlugins("10-logger", "20-sync")
	for i := range 3 {
		runLifecycle(t, e.a, fmt.Sprintf("pod%d", i))
	}
	e.stop() // delivers what the observer's queue holds, then Shutdown
	sync, observed := e.events("sync"), e.events("logger")
	if len(sync) != 3*len(fullLifecycleEvents) {
		t.Fatalf("the synchronous plugin got %d events, want %d", len(sync), 3*len(fullLifecycleEvents))
	}
	if !slices.Equal(observed, sync) {
		t.Errorf("the observer got\n%v\nthe synchronous plugin\n%v", observed, sync)
	}
	for _, en := range e.logged(logrus.Fields{"plugin": "10-logger"}) {
		if _, ok := en.Data["undelivered"]; ok {
			t.Errorf("Stop left events undelivered: %s %v", en.Message, en.Data)
		}
	}
	// The same events, of the same pods and containers, in the same order.
	if got, want := targets(e.records(), "logger"), targets(e.records(), "sync"); !slices.Equal(got, want) {
		t.Errorf("the observer's events name\n%v\nthe synchronous plugin's\n%v", got, want)
	}
}

// targets lists a plugin's events with their pod and container.
func targets(recs []testplugin.Record, name string) []string {
	var out []string
	for _, r := range recs {
		if r.Plugin == name && r.Event != testplugin.KeyConfigure && r.Event != testplugin.KeySynchronize && r.Event != testplugin.KeyShutdown {
			out = append(out, r.Event+" "+r.Pod+"/"+r.Container)
		}
	}
	return out
}

// An observer blocked in its first call for good holds back no runtime
// call: every event of a pod's lifecycle and 50 more creations return
// while it still has not answered.
func TestObserverBlockedForeverDelaysNothing(t *testing.T) {
	hang := map[string]testplugin.Behaviour{}
	for _, ev := range api.AllEvents.Events() {
		hang[ev.Name()] = testplugin.Behaviour{Hang: true}
	}
	e := newEnv(t, adaptation.WithPluginSettings("10-stuck", adaptation.PluginSettings{
		Delivery: adaptation.DeliveryObserve, RequestTimeout: adaptation.Duration(time.Hour),
	}))
	e.preinstall("10", "stuck", testplugin.Config{Behaviours: hang})
	e.preinstall("20", "sync", testplugin.Config{})
	e.start()
	e.waitPlugins("10-stuck", "20-sync")
	e.waitDelivered("10-stuck")
	withinWaitLimit(t, "a pod's lifecycle", func() {
		runLifecycle(t, e.a, "pod")
		ctx := context.Background()
		pod := testPod("busy")
		if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
			t.Error(err)
		}
		for i := range 50 {
			if _, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: testContainer(fmt.Sprint("c", i), pod)}); err != nil {
				t.Error(err)
			}
		}
	})
	e.waitUntil("its first event", func() bool { return len(e.events("stuck")) > 0 })
	if got := e.events("stuck"); !slices.Equal(got, []string{"RunPodSandbox"}) {
		t.Errorf("the observer got %v, want only its first event, still in progress", got)
	}
	queued := len(fullLifecycleEvents) + 1 + 2*50
	q := queueOf(e.a, "10-stuck")
	if q == nil || q.QueueLength != queued || q.Lag <= 0 {
		t.Errorf("its queue in Status: %+v, want all %d events not delivered, with a lag", q, queued)
	}
	// Stop delivers what it can within its context, and says what it could not.
	e.stopWithin(3 * time.Second)
	lines := e.waitLogged(logrus.Fields{"plugin": "10-stuck", "undelivered": queued})
	if len(lines) != 1 {
		t.Errorf("%d lines about the undelivered events, want 1", len(lines))
	}
}

// waitDelivered waits until the queue of plugin id, an observer, is empty:
// its snapshot was delivered.
func (e *env) waitDelivered(id string) {
	e.t.Helper()
	e.waitUntil(id+"'s empty queue", func() bool {
		q := queueOf(e.a, id)
		return q != nil && q.QueueLength == 0
	})
}

// stopWithin stops the runtime with a context of d.
func (e *env) stopWithin(d time.Duration) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := e.a.Stop(ctx); err != nil {
		e.t.Errorf("Stop: %v", err)
	}
}

// An observer that hangs in Synchronize holds back no event: its snapshot
// is queued, not awaited under the event barrier.
func TestObserverHangingInSynchronizeDoesNotHoldEvents(t *testing.T) {
	e := newEnv(t, observe("10-stuck"), adaptation.WithSyncTimeout(time.Hour))
	e.preinstall("10", "stuck", testplugin.Config{Behaviours: map[string]testplugin.Behaviour{testplugin.KeySynchronize: {Hang: true}}})
	e.start()
	e.waitPlugins("10-stuck") // joined: its snapshot queued
	withinWaitLimit(t, "RunPodSandbox", func() {
		if err := e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: testPod("p")}); err != nil {
			t.Error(err)
		}
	})
	if q := queueOf(e.a, "10-stuck"); q == nil || q.QueueLength != 2 {
		t.Errorf("its queue: %+v, want its Synchronize and the RunPodSandbox behind it", q)
	}
	e.stopWithin(3 * time.Second)
}

// An observer's replies are not applied: its adjustment is not in the
// merged response, its updates are dropped and counted, its
// UpdateContainers is refused with the reason. It gets CreateContainer with
// the container as the other plugins left it.
func TestObserverRepliesAreNotApplied(t *testing.T) {
	e := newEnv(t, observe("10-logger"), observe("30-watch"))
	e.preinstall("10", "logger", testplugin.Config{
		Annotations: map[string]string{"observer": "ignored"}, LogAnnotations: true,
		CreateUpdates: []testplugin.Update{{ContainerID: "pod-c1", CPUShares: 100}},
	})
	e.preinstall("20", "sync", testplugin.Config{Annotations: map[string]string{"sync": "applied"}})
	e.start()
	watch, err := testplugin.Start(context.Background(), dialSocket(t, e.socket), e.plugin("30", "watch", testplugin.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { watch.Close() })
	e.waitPlugins("10-logger", "20-sync", "30-watch")
	rsps := runLifecycle(t, e.a, "pod")
	for _, rsp := range rsps {
		if got := rsp.GetAdjust().GetAnnotations(); len(got) != 1 || got["sync"] != "applied" {
			t.Errorf("merged annotations %v, want the synchronous plugin's alone", got)
		}
		if len(rsp.GetUpdate()) != 0 {
			t.Errorf("merged updates %v, want none: the observer's are not applied", rsp.GetUpdate())
		}
	}
	_, err = watch.UpdateContainers(context.Background(), []*api.ContainerUpdate{testplugin.Update{ContainerID: "pod-c1", CPUShares: 5}.ContainerUpdate()})
	if err == nil || !strings.Contains(err.Error(), "30-watch is an observer") {
		t.Errorf("an observer's UpdateContainers = %v, want refused, naming it an observer", err)
	}
	e.store.mu.Lock()
	if e.store.updates != nil {
		t.Errorf("the runtime got %v", e.store.updates)
	}
	e.store.mu.Unlock()
	e.stop()
	var created int
	for _, r := range e.records() {
		if r.Plugin == "logger" && r.Event == "CreateContainer" {
			created++
			if r.Annotations["sync"] != "applied" {
				t.Errorf("the observer got container %s with annotations %v: not as the other plugins left it", r.Container, r.Annotations)
			}
		}
	}
	if created != 2 {
		t.Errorf("the observer got %d CreateContainer, want 2", created)
	}
	if n := len(e.waitLoggedMessage(`nrikit: an observer's reply is not applied (delivery = "observe")`)); n != 1 {
		t.Errorf("%d warnings about ignored replies within a minute, want 1", n)
	}
	// Two adjustments and two updates, then the one refused update.
	for _, p := range e.a.Status().Plugins {
		if want := map[string]uint64{"10-logger": 4}[p.Plugin]; p.Plugin == "10-logger" && p.Queue.RepliesIgnored != want {
			t.Errorf("%s ignored %d changes, want %d", p.Plugin, p.Queue.RepliesIgnored, want)
		}
	}
}

// A creation that fails never reaches an observer, nor its undo.
func TestObserverNeverSeesAFailedCreation(t *testing.T) {
	e := newEnv(t, observe("10-logger"))
	e.preinstall("10", "logger", testplugin.Config{})
	e.preinstall("20", "failer", testplugin.Config{Behaviours: map[string]testplugin.Behaviour{"CreateContainer": {Fail: "no"}}})
	e.start()
	e.waitPlugins("10-logger", "20-failer")
	ctx := context.Background()
	pod := testPod("p")
	ctr := testContainer("c", pod)
	if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr}); err == nil {
		t.Fatal("the failer did not fail the creation")
	}
	// The runtime's undo, then the pod's end.
	for _, err := range []error{
		e.a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: ctr}),
		e.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}),
		e.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	e.stop()
	if got, want := e.events("logger"), []string{"RunPodSandbox", "StopPodSandbox", "RemovePodSandbox"}; !slices.Equal(got, want) {
		t.Errorf("the observer got %v, want %v", got, want)
	}
}

// An observer whose queue overflows (observer_queue = 16, 100 ms per event,
// a burst of 200) is dropped with the reason; it reconnects, and its
// snapshot holds exactly the live pods.
func TestObserverOverflowDropsItAndItResynchronizes(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, observe("10-slow"), adaptation.WithObserverQueue(16), adaptation.WithPluginChanges(changes.add))
	e.start()
	e.external("10", "slow", testplugin.Config{Delay: "100ms", Reconnect: 1})
	e.waitPlugins("10-slow")
	e.waitDelivered("10-slow")
	// Its reconnection lists the runtime's pods once the burst is over.
	burstDone := make(chan struct{})
	var live []*api.PodSandbox
	e.store.mu.Lock()
	e.store.syncWith = func(ctx context.Context, cb adaptation.SyncCB) error {
		<-burstDone
		_, err := cb(ctx, live, nil)
		return err
	}
	e.store.mu.Unlock()
	ctx := context.Background()
	for i := range 200 {
		pod := testPod(fmt.Sprint("burst-", i))
		if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
			t.Fatal(err)
		}
		live = append(live, pod)
	}
	for _, pod := range live[150:] { // some go before it resynchronizes
		e.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod})
		e.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod})
	}
	live = live[:150]
	close(burstDone)

	got := changes.waitFor(t, "10-slow", 3) // joined, left, joined
	if !regexp.MustCompile(`^left : observer queue overflow \(1[78] events behind\)$`).MatchString(got[1]) {
		t.Errorf("changes %q: want it left for its queue's overflow, 16 waiting, one in delivery (or taken in by then), one that did not fit", got)
	}
	var snapshots [][]string
	e.waitUntil("its second snapshot", func() bool {
		snapshots = nil
		for _, r := range e.records() {
			if r.Plugin == "slow" && r.Event == testplugin.KeySynchronize {
				snapshots = append(snapshots, r.Pods)
			}
		}
		return len(snapshots) == 2
	})
	var want []string
	for _, p := range live {
		want = append(want, p.Id)
	}
	if got := slices.Sorted(slices.Values(snapshots[1])); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("its new snapshot lists %d pods, want exactly the %d live ones", len(got), len(want))
	}
	if q := queueOf(e.a, "10-slow"); q == nil || q.Overflows != 1 {
		t.Errorf("its queue in Status: %+v, want one overflow counted", q)
	}
}
