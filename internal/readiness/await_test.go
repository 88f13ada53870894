// SPDX-License-Identifier: Apache-2.0

package readiness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/nrikit/nrikit/api"
)

// A required plugin joining wakes a waiting pod, which then passes.
func TestAwaitReturnsWhenTheRequiredPluginJoins(t *testing.T) {
	f := newFixture(t, time.Minute)
	entered := make(chan struct{}, 1)
	f.WatchWaiters(func() { entered <- struct{}{} })
	f.Starting()
	done := make(chan error, 1)
	go func() { done <- f.Await(context.Background(), testPod("p")) }()
	select {
	case <-entered:
	case <-time.After(waitLimit):
		t.Fatal("the pod did not wait")
	}
	select {
	case err := <-done:
		t.Fatalf("Await returned %v before the plugin joined", err)
	default:
	}
	f.join(gateID)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Await once the plugin joined: %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Await did not return once the plugin joined")
	}
}

// At the bound, Await fails with ErrPluginsNotReady telling what happened
// to the missing plugin last.
func TestAwaitTellsTheMissingPluginsStoryAtTheBound(t *testing.T) {
	for _, tc := range []struct {
		name  string
		story func(*fixture)
		want  string
	}{
		{"never connected", func(*fixture) {}, `"gate" never connected`},
		{"left", func(f *fixture) { f.join(gateID); f.leave(gateID, "connection lost") }, `"gate" (10-gate) left at `},
		{"failed", func(f *fixture) { f.Failed(gateID, "configure", "boom") }, `"gate" (10-gate) failed to join at `},
		{"synchronizing", func(f *fixture) { f.Synchronizing(gateID) }, `"gate" (10-gate) registered and is synchronizing since `},
		{"sync back-off", func(f *fixture) {
			f.plugins.backOff(gateID, time.Now().Add(time.Hour))
			f.Failed(gateID, "synchronize", "timed out")
		}, `"gate" (10-gate) is in its sync back-off until `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const wait = 200 * time.Millisecond
			f := newFixture(t, wait)
			f.Starting()
			tc.story(f)
			err := f.Await(context.Background(), testPod("p"))
			if !errors.Is(err, ErrPluginsNotReady) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Await: %v, want ErrPluginsNotReady saying %q", err, tc.want)
			}
			why := "(waited " + wait.String() + ")"
			if tc.name == "sync back-off" {
				why = "(a sync back-off outlasts the wait)"
			}
			if want := "nrikit: required plugins not ready: pod default/p " + why + ": "; err != nil && !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Await: %q, want it to begin %q", err, want)
			}
		})
	}
}

// A story's details are the latest: the phase and reason of a failure,
// the reason of a departure.
func TestAwaitTellsTheDetailsOfTheLatestStory(t *testing.T) {
	f := newFixture(t, 100*time.Millisecond)
	f.Starting()
	f.Failed(gateID, "configure", "bad config")
	err := f.Await(context.Background(), testPod("p"))
	if err == nil || !strings.Contains(err.Error(), "during configure: bad config") {
		t.Errorf("Await after a failed join: %v, want its phase and reason", err)
	}
	f.join(gateID)
	f.leave(gateID, "connection lost")
	err = f.Await(context.Background(), testPod("p"))
	if err == nil || !strings.Contains(err.Error(), ": connection lost") || strings.Contains(err.Error(), "bad config") {
		t.Errorf("Await after the plugin left: %v, want its departure alone", err)
	}
}

// Before Starting and once Stopping, Await fails at once saying so, and
// State tells each required plugin as not started.
func TestAwaitFailsAtOnceWhenNotStarted(t *testing.T) {
	f := newFixture(t, time.Minute)
	check := func(when string) {
		t.Helper()
		start := time.Now()
		err := f.Await(context.Background(), testPod("p"))
		if !errors.Is(err, ErrPluginsNotReady) || !strings.Contains(err.Error(), "NRI is not started, or is stopping") {
			t.Errorf("Await %s: %v, want it to say NRI is not started", when, err)
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("Await %s took %v", when, took)
		}
		s := f.State()
		if s.Ready || len(s.Missing) != 1 || s.Missing[0].State != NotStarted || s.Missing[0].String() != `"gate": NRI is not started` {
			t.Errorf("State %s: %+v, want gate not started", when, s)
		}
	}
	check("before Starting")
	f.Starting()
	f.join(gateID)
	f.leave(gateID, "runtime shutting down")
	f.Stopping()
	check("once Stopping")
}

// Under Proceed a pod goes on at the bound, with a warning that tells the
// missing plugins; it is not counted, as it is not created yet.
func TestAwaitProceedsWithAWarning(t *testing.T) {
	f := newFixture(t, 100*time.Millisecond, func(c *Config) { c.Proceed = true })
	f.Starting()
	if err := f.Await(context.Background(), testPod("p")); err != nil {
		t.Fatalf("Await under Proceed: %v", err)
	}
	w := f.warnings()
	if len(w) != 1 || w[0].Message != "nrikit: pod let through without its required plugins (plugin_readiness.on_timeout = proceed)" ||
		w[0].Data["pod"] != "default/p" || w[0].Data["missing"] != `"gate" never connected` || w[0].Data["why"] != "waited 100ms" {
		t.Errorf("warnings %+v, want one telling the pod, the missing plugin and why", w)
	}
	if n := f.State().Proceeded; n != 0 {
		t.Errorf("State().Proceeded = %d after Await, want 0", n)
	}
}

// Exempt and tolerating pods pass at once, and so does every pod once its
// required plugins are active, or when the gate is off; none of these
// allocate.
func TestAwaitPassesAtOnceWithoutAllocating(t *testing.T) {
	f := newFixture(t, time.Minute)
	f.Starting()
	exempt := testPod("sys")
	exempt.Namespace = exemptNamespace
	tolerating := testPod("tol")
	tolerating.Annotations = map[string]string{tolerateKey + "/pod": "true"}
	ctx := context.Background()
	for _, pod := range []*api.PodSandbox{exempt, tolerating} {
		if err := f.Await(ctx, pod); err != nil {
			t.Errorf("Await(%s): %v", pod.GetName(), err)
		}
		if n := testing.AllocsPerRun(100, func() { _ = f.Await(ctx, pod) }); n != 0 {
			t.Errorf("Await(%s) allocates %v times", pod.GetName(), n)
		}
	}
	f.join(gateID)
	pod := testPod("p")
	if n := testing.AllocsPerRun(100, func() {
		if err := f.Await(ctx, pod); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Await with the required plugin active allocates %v times", n)
	}
	off := newFixture(t, 0)
	off.Starting()
	if n := testing.AllocsPerRun(100, func() {
		if err := off.Await(ctx, pod); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Await with the gate off allocates %v times", n)
	}
}

// The pod's annotation adds to what it waits for, and one that cannot be
// read fails the pod.
func TestAwaitWaitsForAnnotatedPlugins(t *testing.T) {
	f := newFixture(t, 100*time.Millisecond)
	f.Starting()
	f.join(gateID)
	pod := testPod("p")
	pod.Annotations = map[string]string{requiredAnnotated: "[extra]"}
	err := f.Await(context.Background(), pod)
	if !errors.Is(err, ErrPluginsNotReady) || !strings.Contains(err.Error(), `"extra" never connected`) || strings.Contains(err.Error(), `"gate"`) {
		t.Errorf("Await: %v, want ErrPluginsNotReady naming extra alone", err)
	}
	pod.Annotations[requiredAnnotated] = "{"
	err = f.Await(context.Background(), pod)
	if !errors.Is(err, ErrPluginsNotReady) || !strings.Contains(err.Error(), "nrikit: required plugins not ready: pod default/p: ") {
		t.Errorf("Await with a bad annotation: %v", err)
	}
}

// The caller's deadline, less what RunPodSandbox needs in it, bounds the
// wait before wait does.
func TestAwaitLeavesRunPodSandboxItsTime(t *testing.T) {
	f := newFixture(t, time.Minute)
	f.plugins.worstCase = 400 * time.Millisecond
	f.Starting()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := f.Await(ctx, testPod("p"))
	deadline, _ := ctx.Deadline()
	const why = "(the caller's deadline less 500ms: setup_reserve 0s, RunPodSandbox's plugins 400ms, deadline_reserve 100ms)"
	if !errors.Is(err, ErrPluginsNotReady) || !strings.Contains(err.Error(), why) {
		t.Errorf("Await: %v, want ErrPluginsNotReady saying %s", err, why)
	}
	if left := time.Until(deadline); left < 250*time.Millisecond {
		t.Errorf("Await left %v of the caller's deadline, want about 500ms", left)
	}
}

// A cancelled context ends the wait with its cause.
func TestAwaitEndsWithTheContext(t *testing.T) {
	f := newFixture(t, time.Minute)
	entered := make(chan struct{}, 1)
	f.WatchWaiters(func() { entered <- struct{}{} })
	f.Starting()
	cause := errors.New("the kubelet gave up")
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Await(ctx, testPod("p")) }()
	select {
	case <-entered:
	case <-time.After(waitLimit):
		t.Fatal("the pod did not wait")
	}
	cancel(cause)
	select {
	case err := <-done:
		if !errors.Is(err, cause) || errors.Is(err, ErrPluginsNotReady) {
			t.Errorf("Await once its context ended: %v, want the context's cause", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Await did not return once its context ended")
	}
}

// At most 1,024 pods wait; the next meets the bound at once. Stopping ends
// every wait at once, and leaves no goroutine behind.
func TestWaitersAreBoundedAndStoppingEndsThem(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFixture(t, time.Minute)
	entered := make(chan struct{}, maxWaiters)
	f.WatchWaiters(func() { entered <- struct{}{} })
	f.Starting()
	returned := make(chan error, maxWaiters)
	for i := range maxWaiters {
		go func() { returned <- f.Await(context.Background(), testPod(fmt.Sprint(i))) }()
	}
	for range maxWaiters {
		select {
		case <-entered:
		case <-time.After(waitLimit):
			t.Fatal("the pods did not all start waiting")
		}
	}
	start := time.Now()
	err := f.Await(context.Background(), testPod("one-too-many"))
	if !errors.Is(err, ErrPluginsNotReady) || !strings.Contains(err.Error(), "(1024 pods wait already)") || time.Since(start) > time.Second {
		t.Errorf("Await beyond the bound of waiters: %v after %v, want ErrPluginsNotReady at once", err, time.Since(start))
	}
	stopping := time.Now()
	f.Stopping()
	for range maxWaiters {
		select {
		case err := <-returned:
			if !errors.Is(err, ErrPluginsNotReady) || !strings.Contains(err.Error(), "NRI is stopping") {
				t.Errorf("Await at Stopping: %v, want ErrPluginsNotReady saying NRI is stopping", err)
			}
		case <-time.After(waitLimit):
			t.Fatal("a waiter did not return at Stopping")
		}
	}
	if took := time.Since(stopping); took > 2*time.Second {
		t.Errorf("the waiters took %v to return after Stopping, want at once", took)
	}
}

// A required plugin that synchronizes for over a second while pods wait
// for it is hinted about once, however many pods wait.
func TestAwaitHintsOnceAtASynchronizationThatDoesNotEnd(t *testing.T) {
	const wait = 1500 * time.Millisecond
	f := newFixture(t, wait)
	f.Starting()
	ended := f.Synchronizing(gateID)
	defer ended()
	const waiters = 3
	errs := make(chan error, waiters)
	for i := range waiters {
		go func() { errs <- f.Await(context.Background(), testPod(fmt.Sprint(i))) }()
	}
	for range waiters {
		select {
		case err := <-errs:
			if !errors.Is(err, ErrPluginsNotReady) || !strings.Contains(err.Error(), "synchronizing since") {
				t.Errorf("Await: %v, want ErrPluginsNotReady saying the plugin synchronizes", err)
			}
		case <-time.After(waitLimit):
			t.Fatal("Await did not return at its bound")
		}
	}
	hints := 0
	for _, w := range f.warnings() {
		if strings.Contains(w.Message, "AwaitPlugins is probably called under a lock") {
			hints++
			if w.Data["plugin"] != gateID {
				t.Errorf("the hint names %v, want %s", w.Data["plugin"], gateID)
			}
		}
	}
	if hints != 1 {
		t.Errorf("the hint was logged %d times, want once", hints)
	}
}

// A pod outside a required plugin's scope does not wait for it; a pod in
// its scope still does.
func TestAwaitPassesAPodOutsideTheRequiredPluginsScope(t *testing.T) {
	f := newFixture(t, 100*time.Millisecond, requiring(gateName, "other"))
	f.plugins.mu.Lock()
	f.plugins.scope = func(name string, pod *api.PodSandbox) bool { return name != gateName || pod.GetNamespace() == "gpu" }
	f.plugins.mu.Unlock()
	f.Starting()
	f.join("20-other")
	if err := f.Await(context.Background(), testPod("p")); err != nil {
		t.Errorf("Await of a pod outside %s's scope: %v", gateName, err)
	}
	inScope := testPod("q")
	inScope.Namespace = "gpu"
	err := f.Await(context.Background(), inScope)
	if !errors.Is(err, ErrPluginsNotReady) || !strings.Contains(err.Error(), `"`+gateName+`" never connected`) {
		t.Errorf("Await of a pod in %s's scope: %v, want it waited for in vain", gateName, err)
	}
}
