// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// churnCase is one runtime shape driven under churn.
type churnCase struct {
	name         string
	unlockedList bool // SyncFn lists and calls back without any lock
	blocks       bool // BlockPluginSync around every event, before the runtime's lock
	updater      bool // a plugin loops on UpdateContainers
}

var churnCases = []churnCase{
	{name: "runtime lock around events and sync"},
	{name: "sync lists without any lock", unlockedList: true},
	{name: "BlockPluginSync before the runtime lock", blocks: true},
	{name: "plugin loops on UpdateContainers", updater: true},
}

// TestLockOrderUnderChurn: a runtime that holds its own lock while calling
// every event method, and takes it in SyncFn and UpdateFn, never deadlocks
// with nrikit while pods and containers cycle on several goroutines and
// plugin processes join, crash and replace each other; every plugin hears
// of each pod and container at most once, in order, and the plugins that
// stay hear of every one exactly once.
func TestLockOrderUnderChurn(t *testing.T) {
	for _, c := range churnCases {
		t.Run(c.name, func(t *testing.T) { runChurn(t, c, 3, 40, 5) })
	}
}

// TestLongChurnLockOrder is TestLockOrderUnderChurn for thousands of
// cycles; make test's churn step runs it without the race detector.
func TestLongChurnLockOrder(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("thousands of cycles: run without -race and -short (make test's churn step)")
	}
	for _, c := range churnCases {
		t.Run(c.name, func(t *testing.T) { runChurn(t, c, 4, 2000, 40) })
	}
}

// runChurn cycles pods on workers goroutines until at least cycles are done
// and joins plugins have joined during them.
// TestEventUnderRuntimeLockWhileSyncFnWaitsForIt: the plugin's SyncFn waits
// for the runtime's lock, which the caller of an event holds: the event
// completes (nrikit holds nothing SyncFn's caller needs), then the plugin
// joins and hears of the pod exactly once.
func TestEventUnderRuntimeLockWhileSyncFnWaitsForIt(t *testing.T) {
	e := newEnv(t)
	r := newRuntimeDouble(t, e, false, false)
	r.syncing = make(chan struct{})
	e.start()
	pod := testPod("p")
	r.mu.Lock()
	e.external("10", "joining", testplugin.Config{})
	awaitClosed(t, r.syncing, "the runtime's SyncFn to start")
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod})
	r.putPod(pod, ready)
	r.mu.Unlock()
	must(t, err)
	e.waitPlugins("10-joining")
	got := e.seen("joining")
	if !slices.Equal(got, []string{"Synchronize[p:READY][]"}) {
		t.Fatalf("plugin saw %v, want the pod once, in its snapshot", got)
	}
}

func runChurn(t *testing.T, c churnCase, workers, cycles, joins int) {
	e := newEnv(t)
	r := newRuntimeDouble(t, e, c.unlockedList, c.blocks)
	e.start()
	clock := &podClock{removed: map[string]int64{}}
	teardown := func(ids ...string) {
		clock.mu.Lock()
		defer clock.mu.Unlock()
		now := clock.tick()
		for _, id := range ids {
			clock.removed[id] = now
		}
	}
	stayers := map[string]int64{} // plugin name -> when it had joined

	e.external("90", "early", testplugin.Config{Events: notValidating})
	e.waitPluginsInclude("90-early")
	stayers["early"] = clock.tick()
	var upd *updater
	if c.updater {
		upd = startUpdater(t, e)
		stayers["updater"] = clock.tick()
	}

	progress := make(chan struct{}, 1)
	var cyclesDone, joined atomic.Int64
	stopWork, finished := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	r.busy.Store(true)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				last := isClosed(stopWork) // the last pod of each worker stays
				id := fmt.Sprintf("w%d-p%05d", w, i)
				if err := r.cycle(id, i, last, teardown); err != nil {
					t.Errorf("cycle %s: %v", id, err)
				}
				if last {
					return
				}
				cyclesDone.Add(1)
				select {
				case progress <- struct{}{}:
				default:
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(r.quiet)
		close(finished)
	}()
	stopChurn, churnDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(churnDone)
		churnUntil(t, e, stopChurn, &joined)
	}()

	awaitProgress(t, progress, finished, func() bool { return cyclesDone.Load() >= int64(cycles/2) })
	e.external("91", "mid", testplugin.Config{Events: notValidating}) // joins mid-churn
	e.waitPluginsInclude("91-mid")
	stayers["mid"] = clock.tick()
	awaitProgress(t, progress, finished, func() bool {
		return cyclesDone.Load() >= int64(cycles) && joined.Load() >= int64(joins)
	})
	close(stopWork)
	awaitProgress(t, progress, finished, nil)
	close(stopChurn)
	awaitClosed(t, churnDone, "the plugin churn to end")
	if upd != nil {
		upd.end(t, e)
	}

	recs := e.records()
	t.Logf("%d cycles, %d plugin instances, %d syncs, %d unsolicited updates",
		cyclesDone.Load(), len(byInstance(recs)), r.syncs.Load(), r.updates.Load())
	for who, instance := range byInstance(recs) {
		checkInstance(t, who, instance)
		checkSnapshotOrder(t, who, instance)
	}
	live := r.live()
	for name, joined := range stayers {
		checkStayed(t, name, testplugin.Of(recs, name), clock, joined, live)
	}
}

// churnUntil connects plugin processes one after another until stop: most
// join and are killed, some are killed during their handshake, some are
// replaced by the next instance of the same name.
func churnUntil(t *testing.T, e *env, stop <-chan struct{}, joined *atomic.Int64) {
	for i := 0; !isClosed(stop); i++ {
		idx, name := fmt.Sprintf("2%d", i%2), fmt.Sprintf("churn%d", i%2)
		cmd := e.external(idx, name, testplugin.Config{Events: notValidating})
		if i%4 == 3 {
			_ = cmd.Process.Kill()
			continue
		}
		if err := awaitInstance(e, idx+"-"+name, cmd.Process.Pid); err != nil {
			t.Error(err)
			return
		}
		joined.Add(1)
		if i%4 != 2 {
			_ = cmd.Process.Kill()
		}
	}
}

// awaitInstance is waitInstance for any goroutine: it returns an error
// instead of failing the test.
func awaitInstance(e *env, id string, pid int) error {
	deadline := time.After(waitLimit)
	for {
		changed := e.metrics.changed()
		for _, p := range e.a.Plugins() {
			if p.Plugin == id && p.PID == pid {
				return nil
			}
		}
		select {
		case <-changed:
		case <-deadline:
			dumpGoroutines()
			return fmt.Errorf("plugin %s of pid %d never joined; active: %+v", id, pid, e.a.Plugins())
		}
	}
}

// awaitProgress waits until done holds (nil: until finished closes), as
// long as cycles keep completing: a wait of waitLimit without one is a
// deadlock.
func awaitProgress(t *testing.T, progress <-chan struct{}, finished <-chan struct{}, done func() bool) {
	t.Helper()
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	for done == nil || !done() {
		select {
		case <-finished:
			return
		case <-progress:
			timer.Reset(waitLimit)
		case <-timer.C:
			dumpGoroutines()
			t.Fatalf("deadlock: no cycle completed within %v", waitLimit)
		}
	}
}

func awaitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(waitLimit):
		dumpGoroutines()
		t.Fatalf("deadlock: waited %v for %s", waitLimit, what)
	}
}

// dumpGoroutines writes every goroutine's stack to stderr, where it is seen
// even if the test then hangs until go test's timeout.
func dumpGoroutines() {
	buf := make([]byte, 16<<20)
	n := runtime.Stack(buf, true)
	fmt.Fprintf(os.Stderr, "=== goroutines ===\n%s\n", buf[:n])
}

// updater is a plugin process that sends unsolicited container updates in
// a loop, one call at a time, naming containers it heard created and not
// removed (testplugin.UpdateLoop).
type updater struct {
	cmd *exec.Cmd
}

func startUpdater(t *testing.T, e *env) *updater {
	t.Helper()
	cmd := e.external("95", "updater", testplugin.Config{Events: notValidating,
		UpdateLoop: &testplugin.UpdateLoop{SharesEvery: 3}})
	e.waitPluginsInclude("95-updater")
	return &updater{cmd: cmd}
}

// end kills the updater and waits until the runtime has dropped it, so that
// its log is complete, then checks that its calls got through: an update of
// a container removed meanwhile may be reported failed, but no call may be
// refused (a ResourceExhausted would mean more than one call at a time).
func (u *updater) end(t *testing.T, e *env) {
	t.Helper()
	_ = u.cmd.Process.Kill()
	if err := awaitGone(e, "95-updater"); err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]int{}
	for _, r := range testplugin.Find(e.records(), "updater", testplugin.RecordUpdateContainers) {
		outcomes[r.Outcome]++
		if r.Outcome == testplugin.OutcomeError {
			t.Errorf("updater: UpdateContainers of %s refused: %s", r.Container, r.Error)
		}
	}
	t.Logf("updater calls by outcome: %v", outcomes)
	if outcomes[testplugin.OutcomeOK] == 0 {
		t.Error("the updater plugin got no UpdateContainers call through")
	}
}

// awaitGone waits until no plugin of the given ID is active.
func awaitGone(e *env, id string) error {
	deadline := time.After(waitLimit)
	for {
		changed := e.metrics.changed()
		if !slices.Contains(pluginIDs(e.a), id) {
			return nil
		}
		select {
		case <-changed:
		case <-deadline:
			dumpGoroutines()
			return fmt.Errorf("plugin %s still active %v after its process was killed", id, waitLimit)
		}
	}
}

// checkSnapshotOrder: a container in a snapshot comes with its pod, or
// after it was announced.
func checkSnapshotOrder(t *testing.T, who string, recs []testplugin.Record) {
	t.Helper()
	known := map[string]bool{}
	for _, r := range recs {
		switch r.Event {
		case "RunPodSandbox":
			known[r.Pod] = true
		case "Synchronize":
			for _, id := range r.Pods {
				if !strings.HasSuffix(r.PodStates[id], "UNKNOWN") {
					known[id] = true
				}
			}
			for _, id := range r.Containers {
				if pod := strings.TrimSuffix(id, "-c"); !known[pod] {
					t.Errorf("%s: snapshot has container %s before its pod %s was announced", who, id, pod)
				}
			}
		}
	}
}

// checkStayed: a plugin that stayed from joined on heard of every pod and
// container whose teardown began after it joined exactly once, then of its
// stop and removal once each; of every live one exactly once; and of the
// removal of everything it heard of that is gone.
func checkStayed(t *testing.T, name string, recs []testplugin.Record, clock *podClock, joined int64, live []string) {
	t.Helper()
	announced, stopped, removed := map[string]int{}, map[string]int{}, map[string]int{}
	for _, r := range recs {
		for _, id := range announcedBy(r) {
			announced[id]++
		}
		switch r.Event {
		case "StopPodSandbox":
			stopped[r.Pod]++
		case "StopContainer":
			stopped[r.Container]++
		case "RemovePodSandbox":
			removed[r.Pod]++
		case "RemoveContainer":
			removed[r.Container]++
		}
	}
	isLive := map[string]bool{}
	for _, id := range live {
		isLive[id] = true
		if announced[id] != 1 {
			t.Errorf("%s: live %s announced %d times", name, id, announced[id])
		}
	}
	clock.mu.Lock()
	defer clock.mu.Unlock()
	for id, when := range clock.removed {
		if when > joined && (announced[id] != 1 || stopped[id] != 1 || removed[id] != 1) {
			t.Errorf("%s: %s, torn down after it joined: announced %d, stopped %d, removed %d times",
				name, id, announced[id], stopped[id], removed[id])
		}
	}
	for id := range announced {
		if !isLive[id] && removed[id] != 1 {
			t.Errorf("%s: %s is gone but its removal reached it %d times", name, id, removed[id])
		}
	}
}
