// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// deadlineMargin is how much later than the event's deadline a call may
// return on a loaded machine; only a broken deadline takes longer.
const deadlineMargin = 700 * time.Millisecond

// TestCallerDeadlineCutsASlowPlugin: with a caller deadline of 1 s and a
// plugin that needs 3 s, CreateContainer ends at the event's deadline (the
// caller's less the 100 ms reserve). An optional plugin is skipped: the
// creation succeeds without its adjustment, the plugin is not blamed (its
// outcome is canceled, it stays connected and gets the next event). A
// mandatory one (fail_request, set by the operator) fails the creation with
// an error that wraps context.DeadlineExceeded and names no plugin (the
// caller's deadline is nobody's fault, as in the reference); the log line
// names it.
func TestCallerDeadlineCutsASlowPlugin(t *testing.T) {
	for _, mandatory := range []bool{false, true} {
		name := map[bool]string{false: "optional", true: "fail_request"}[mandatory]
		t.Run(name, func(t *testing.T) {
			var opts []adaptation.Option
			if mandatory {
				opts = append(opts, adaptation.WithPluginSettings("slow", adaptation.PluginSettings{
					FailurePolicy: &adaptation.FailurePolicy{FailRequest: true}}))
			}
			e := newEnv(t, append(opts, adaptation.WithRequestTimeout(5*time.Second))...)
			e.preinstall("10", "fast", testplugin.Config{Events: creations, Annotations: map[string]string{"fast": "yes"}})
			e.preinstall("20", "slow", testplugin.Config{Events: creations, Behaviours: delayed("CreateContainer", 3*time.Second),
				Annotations: map[string]string{"slow": "yes"}})
			e.start()
			e.waitPlugins("10-fast", "20-slow")

			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			start := time.Now()
			rsp, err := createUnder(t, e.a, ctx, "cd")
			took := time.Since(start)

			if took < 850*time.Millisecond || took > 900*time.Millisecond+deadlineMargin {
				t.Errorf("CreateContainer took %v, want about 0.9 s", took)
			}
			if mandatory {
				if !errors.Is(err, adaptation.ErrEventDeadline) || !errors.Is(err, context.DeadlineExceeded) ||
					strings.Contains(err.Error(), "slow") || !strings.Contains(err.Error(), "the caller's deadline") {
					t.Errorf("CreateContainer = %v, want the caller's deadline, naming no plugin", err)
				}
				e.waitLoggedMessage("nrikit: the event's deadline cut the plugin's call short; the operation fails")
				var perr *adaptation.PluginError
				if errors.As(err, &perr) {
					t.Errorf("the deadline was blamed on plugin %s: %v", perr.Plugin, err)
				}
			} else {
				if err != nil {
					t.Fatalf("CreateContainer = %v, want success without the slow plugin", err)
				}
				if ann := rsp.GetAdjust().GetAnnotations(); ann["fast"] != "yes" || ann["slow"] != "" {
					t.Errorf("annotations %v, want the fast plugin's and not the slow one's", ann)
				}
			}
			if n := e.metrics.count("20-slow", api.Event_CREATE_CONTAINER, adaptation.OutcomeCanceled); n != 1 {
				t.Errorf("20-slow: %d canceled creations, want 1", n)
			}
			if n := e.metrics.count("20-slow", api.Event_CREATE_CONTAINER, adaptation.OutcomeTimeout); n != 0 {
				t.Errorf("20-slow: %d timed-out creations, want none", n)
			}
			if ids := pluginIDs(e.a); !slices.Equal(ids, []string{"10-fast", "20-slow"}) {
				t.Fatalf("active plugins %v: the plugin the deadline cut was dropped", ids)
			}
			if err := e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: testPod("next")}); err != nil {
				t.Fatalf("next event: %v", err)
			}
			if evs := e.events("slow"); !slices.Equal(evs, []string{"RunPodSandbox", "CreateContainer", "RunPodSandbox"}) {
				t.Errorf("20-slow got %v, want the next event after the cut creation", evs)
			}
		})
	}
}

// TestEventBudgetReservesTimeForMandatoryPlugins: with event_budget 3s, an
// optional plugin that hangs, whose own timeout would take the whole
// budget, is cut short in time for the mandatory plugin after it, whose
// adjustment the creation gets; the hanging one is not dropped.
func TestEventBudgetReservesTimeForMandatoryPlugins(t *testing.T) {
	e := newEnv(t, adaptation.WithRequestTimeout(5*time.Second), adaptation.WithEventBudget(3*time.Second),
		adaptation.WithPluginSettings("20-must", adaptation.PluginSettings{RequestTimeout: adaptation.Duration(time.Second),
			FailurePolicy: &adaptation.FailurePolicy{FailRequest: true}}))
	e.preinstall("10", "hang", testplugin.Config{Events: creations,
		Behaviours: map[string]testplugin.Behaviour{"CreateContainer": {Hang: true}}})
	e.preinstall("20", "must", testplugin.Config{Events: creations, Annotations: map[string]string{"must": "yes"}})
	e.start()
	e.waitPlugins("10-hang", "20-must")

	start := time.Now()
	rsp, err := createUnder(t, e.a, context.Background(), "eb")
	took := time.Since(start)
	if err != nil {
		t.Fatalf("CreateContainer = %v, want success with the mandatory plugin", err)
	}
	if rsp.GetAdjust().GetAnnotations()["must"] != "yes" {
		t.Errorf("adjustment %v lacks the mandatory plugin's", rsp.GetAdjust())
	}
	// The hanging plugin gets the budget less the reserve and the mandatory
	// plugin's second: about 1.9 s.
	if took < 1800*time.Millisecond || took > 2900*time.Millisecond+deadlineMargin {
		t.Errorf("CreateContainer took %v, want about 1.9 s", took)
	}
	if n := e.metrics.count("10-hang", api.Event_CREATE_CONTAINER, adaptation.OutcomeCanceled); n != 1 {
		t.Errorf("10-hang: %d canceled creations, want 1", n)
	}
	e.waitPlugins("10-hang", "20-must")
}

// TestEventBudgetCountsFromTheCall: the event budget counts from the
// event's call, so time a creation waits for a joining plugin's
// synchronization is part of it. The optional plugin, which would have fit
// in the budget counted from the end of that wait, is cut short at the
// event's deadline, about 1.9 s after the call.
func TestEventBudgetCountsFromTheCall(t *testing.T) {
	e := newEnv(t, adaptation.WithRequestTimeout(5*time.Second), adaptation.WithEventBudget(2*time.Second))
	e.preinstall("10", "slow", testplugin.Config{Events: creations, Behaviours: delayed("CreateContainer", 1200*time.Millisecond),
		Annotations: map[string]string{"slow": "yes"}})
	e.start()
	e.waitPlugins("10-slow")
	pod := testPod("bc")
	if err := e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatal(err)
	}
	e.external("20", "joining", testplugin.Config{Events: "stoppodsandbox", Behaviours: delayed(testplugin.KeySynchronize, time.Second)})
	waitSynchronizationHoldsEvents(t, e.a)

	start := time.Now()
	rsp, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("bc-c", pod)})
	took := time.Since(start)
	if err != nil {
		t.Fatalf("CreateContainer = %v, want success without the slow plugin", err)
	}
	if rsp.GetAdjust().GetAnnotations()["slow"] != "" {
		t.Errorf("the slow plugin's adjustment was taken: the budget did not count the wait for the synchronization")
	}
	if took < 1850*time.Millisecond || took > 1900*time.Millisecond+deadlineMargin {
		t.Errorf("CreateContainer took %v, want about 1.9 s", took)
	}
	if n := e.metrics.count("10-slow", api.Event_CREATE_CONTAINER, adaptation.OutcomeCanceled); n != 1 {
		t.Errorf("10-slow: %d canceled creations, want 1", n)
	}
	e.waitPlugins("10-slow", "20-joining")
}

// TestEventDeadlineReachedWhileASynchronizationHoldsEvents: a creation
// waiting for a joining plugin's synchronization that outlasts the event
// budget fails at its deadline (its log line naming the plugin it could
// no longer call, its error naming none), rather than when the
// synchronization ends: one that takes
// CreateContainer, or a validator alone.
func TestEventDeadlineReachedWhileASynchronizationHoldsEvents(t *testing.T) {
	for _, events := range []string{creations, "validatecontaineradjustment"} {
		t.Run(events, func(t *testing.T) {
			e := newEnv(t, adaptation.WithEventBudget(time.Second))
			e.preinstall("10", "a", testplugin.Config{Events: events})
			e.start()
			e.waitPlugins("10-a")
			pod := testPod("bw")
			if err := e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: pod}); err != nil {
				t.Fatal(err)
			}
			e.external("20", "joining", testplugin.Config{Events: "stoppodsandbox", Behaviours: delayed(testplugin.KeySynchronize, 3*time.Second)})
			waitSynchronizationHoldsEvents(t, e.a)

			start := time.Now()
			_, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("bw-c", pod)})
			took := time.Since(start)
			if !errors.Is(err, adaptation.ErrEventDeadline) || strings.Contains(err.Error(), "10-a") ||
				!strings.Contains(err.Error(), "synchronization") || !strings.Contains(err.Error(), "event_budget") {
				t.Errorf("CreateContainer = %v, want event_budget's deadline, reached while a synchronization ran, naming no plugin", err)
			}
			e.waitLoggedLine("nrikit: the event's deadline was reached while it waited for a plugin's synchronization; the operation fails without calling any plugin",
				logrus.Fields{"plugins": "10-a"})
			if took < 850*time.Millisecond || took > 900*time.Millisecond+deadlineMargin {
				t.Errorf("CreateContainer took %v, want about 0.9 s", took)
			}
			e.waitPlugins("10-a", "20-joining")
			if evs := e.events("a"); slices.Contains(evs, "CreateContainer") || slices.Contains(evs, "ValidateContainerAdjustment") {
				t.Errorf("10-a was called after the event's deadline: %v", evs)
			}
		})
	}
}

// waitSynchronizationHoldsEvents waits until a plugin's synchronization
// holds the event barrier.
func waitSynchronizationHoldsEvents(t *testing.T, a *adaptation.Adaptation) {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		held, changed := adaptation.SynchronizationHoldsEvents(a)
		if held {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("no synchronization took the event barrier")
		}
	}
}

// TestEventDeadlinePassedCallsNobody: an event whose caller's deadline has
// passed when it begins fails at once, naming no plugin, without calling
// any; the log line names them.
func TestEventDeadlinePassedCallsNobody(t *testing.T) {
	e := newEnv(t)
	e.preinstall("10", "a", testplugin.Config{Events: creations})
	e.start()
	e.waitPlugins("10-a")

	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
	defer cancel()
	_, err := createUnder(t, e.a, ctx, "dp")
	if !errors.Is(err, adaptation.ErrEventDeadline) || !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "10-a") {
		t.Fatalf("CreateContainer = %v, want the event's deadline, naming no plugin", err)
	}
	e.waitLoggedLine("nrikit: the event's deadline had passed when it began; the operation fails without calling any plugin",
		logrus.Fields{"plugins": "10-a"})
	if evs := e.events("a"); slices.Contains(evs, "CreateContainer") {
		t.Errorf("10-a was called after the event's deadline: %v", evs)
	}
	e.waitPlugins("10-a")
}

// TestCallerDeadlineShorterThanTheReserve: a caller's deadline shorter
// than deadline_reserve is shared: the plugins are called within half of
// it, so that one that answers in time is heard, and one that does not is
// cut at that half, not blamed, and kept.
func TestCallerDeadlineShorterThanTheReserve(t *testing.T) {
	e := newEnv(t, adaptation.WithDeadlineReserve(time.Second))
	e.preinstall("10", "quick", testplugin.Config{Events: creations, Annotations: map[string]string{"quick": "yes"}})
	e.start()
	e.waitPlugins("10-quick")

	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	rsp, err := createUnder(t, e.a, ctx, "sr")
	if err != nil || rsp.GetAdjust().GetAnnotations()["quick"] != "yes" {
		t.Fatalf("CreateContainer under a deadline shorter than the reserve = %v, %v; want the quick plugin's adjustment", rsp.GetAdjust(), err)
	}
}

// TestNoDeadlineKeepsTheOwnTimeout: without a caller deadline and a budget,
// a call gets its plugin's whole timeout, as before.
func TestNoDeadlineKeepsTheOwnTimeout(t *testing.T) {
	e := newEnv(t, adaptation.WithRequestTimeout(300*time.Millisecond))
	e.preinstall("10", "slow", testplugin.Config{Events: creations, Behaviours: delayed("CreateContainer", 150*time.Millisecond),
		Annotations: map[string]string{"slow": "yes"}})
	e.start()
	e.waitPlugins("10-slow")
	rsp, err := createUnder(t, e.a, context.Background(), "nd")
	if err != nil || rsp.GetAdjust().GetAnnotations()["slow"] != "yes" {
		t.Fatalf("CreateContainer = %v, %v; want the slow plugin's adjustment", rsp.GetAdjust(), err)
	}
}

// TestInteropSettingsAndDeadline: a reference-stub plugin that needs 600 ms
// for a creation is kept with its own request_timeout while one without it
// is dropped at the runtime's 200 ms; a caller deadline then cuts the kept
// plugin's creation short without blaming it, and it adjusts the next one.
func TestInteropSettingsAndDeadline(t *testing.T) {
	e := newEnv(t, adaptation.WithRequestTimeout(200*time.Millisecond),
		adaptation.WithPluginSettings("10-kept", adaptation.PluginSettings{RequestTimeout: adaptation.Duration(5 * time.Second)}))
	for _, name := range []string{"10-kept", "20-unset"} {
		idx, n, _ := strings.Cut(name, "-")
		e.refPreinstall("modern", idx, n, "events=RunPodSandbox,CreateContainer", "delay=CreateContainer:600ms")
	}
	e.start()
	e.waitPlugins("10-kept", "20-unset")
	const kept = "interop.nrikit.io/kept"

	rsp, err := createUnder(t, e.a, context.Background(), "i1")
	if err != nil || rsp.GetAdjust().GetAnnotations()[kept] == "" {
		t.Fatalf("first creation: %v, %v; want the kept plugin's adjustment", rsp.GetAdjust(), err)
	}
	e.waitPlugins("10-kept")

	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	rsp, err = createUnder(t, e.a, ctx, "i2")
	if err != nil || rsp.GetAdjust().GetAnnotations()[kept] != "" {
		t.Fatalf("creation under a 400 ms deadline: %v, %v; want success without the slow plugin", rsp.GetAdjust(), err)
	}
	if n := e.metrics.count("10-kept", api.Event_CREATE_CONTAINER, adaptation.OutcomeCanceled); n != 1 {
		t.Errorf("10-kept: %d canceled creations, want 1", n)
	}
	rsp, err = createUnder(t, e.a, context.Background(), "i3")
	if err != nil || rsp.GetAdjust().GetAnnotations()[kept] == "" {
		t.Fatalf("next creation: %v, %v; want the kept plugin's adjustment", rsp.GetAdjust(), err)
	}
	e.waitPlugins("10-kept")
}

// TestEventDeadlineCapsValidators: a validator gets its own timeout capped
// by the creation's deadline; one the deadline cuts short fails the
// creation (a validator's silence is never consent) without being dropped.
func TestEventDeadlineCapsValidators(t *testing.T) {
	e := newEnv(t, adaptation.WithRequestTimeout(5*time.Second))
	e.preinstall("10", "val", testplugin.Config{Events: "runpodsandbox,validatecontaineradjustment",
		Behaviours: delayed("ValidateContainerAdjustment", 3*time.Second)})
	e.start()
	e.waitPlugins("10-val")

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, err := createUnder(t, e.a, ctx, "cv")
	took := time.Since(start)
	if !errors.Is(err, adaptation.ErrEventDeadline) || strings.Contains(err.Error(), "10-val") {
		t.Errorf("CreateContainer = %v, want the event's deadline, naming no plugin", err)
	}
	if took > 900*time.Millisecond+deadlineMargin {
		t.Errorf("CreateContainer took %v, want about 0.9 s", took)
	}
	if n := e.metrics.count("10-val", api.Event_VALIDATE_CONTAINER_ADJUSTMENT, adaptation.OutcomeCanceled); n != 1 {
		t.Errorf("10-val: %d canceled validations, want 1", n)
	}
	e.waitPlugins("10-val")
}

// TestStatusCountsDeadlineMisses: Status counts a call the event's deadline
// cut short as made, outcome canceled, with its latency, without replacing
// the plugin's last error; and a call the deadline left unmade apart, in
// not_called, on every path (the plugin's turn after the deadline, a
// mandatory plugin's miss ending the event, the event beginning after
// it), in no outcome, bucket or PluginInvoked metric. Each event's
// histogram still adds up to its total.
func TestStatusCountsDeadlineMisses(t *testing.T) {
	for _, mandatory := range []bool{false, true} {
		name := map[bool]string{false: "optional", true: "fail_request"}[mandatory]
		t.Run(name, func(t *testing.T) {
			opts := []adaptation.Option{adaptation.WithRequestTimeout(5 * time.Second)}
			if mandatory {
				opts = append(opts, adaptation.WithPluginSettings("slow", adaptation.PluginSettings{
					FailurePolicy: &adaptation.FailurePolicy{FailRequest: true}}))
			}
			e := newEnv(t, opts...)
			e.preinstall("10", "slow", testplugin.Config{Events: creations, Behaviours: delayed("CreateContainer", 3*time.Second)})
			e.preinstall("20", "after", testplugin.Config{Events: creations})
			e.start()
			e.waitPlugins("10-slow", "20-after")

			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_, err := createUnder(t, e.a, ctx, "sm")
			if mandatory != (err != nil) {
				t.Fatalf("CreateContainer = %v, want failure only with fail_request", err)
			}
			slow := eventCallsOf(t, e.a, "10-slow", "CreateContainer")
			if slow.Total != 1 || slow.Outcomes[adaptation.OutcomeCanceled] != 1 || slow.NotCalled != 0 ||
				slow.Latency.Max < adaptation.Duration(800*time.Millisecond) {
				t.Errorf("10-slow's creations %+v, want 1 made, canceled, after about 0.9 s", slow)
			}
			after := eventCallsOf(t, e.a, "20-after", "CreateContainer")
			if after.Total != 0 || len(after.Outcomes) != 0 || after.NotCalled != 1 {
				t.Errorf("20-after's creations %+v, want none made and 1 not called", after)
			}
			if n := e.metrics.count("20-after", api.Event_CREATE_CONTAINER, adaptation.OutcomeCanceled); n != 0 {
				t.Errorf("20-after: %d canceled creations in the metrics, want none: it was not invoked", n)
			}

			// An event that began after its deadline: nobody is called.
			gone, cancelGone := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
			defer cancelGone()
			if _, err := createUnder(t, e.a, gone, "sp"); !errors.Is(err, adaptation.ErrEventDeadline) {
				t.Fatalf("CreateContainer past its deadline = %v, want ErrEventDeadline", err)
			}
			if c := eventCallsOf(t, e.a, "10-slow", "CreateContainer"); c.Total != 1 || c.NotCalled != 1 {
				t.Errorf("10-slow's creations %+v, want still 1 made and now 1 not called", c)
			}
			if c := eventCallsOf(t, e.a, "20-after", "CreateContainer"); c.Total != 0 || c.NotCalled != 2 {
				t.Errorf("20-after's creations %+v, want none made and 2 not called", c)
			}

			for _, p := range e.a.Status().Plugins {
				if p.LastError != nil {
					t.Errorf("%s's last error %+v: the event's deadline is not its failure", p.Plugin, p.LastError)
				}
				for _, c := range p.Calls {
					var inBuckets, byOutcome uint64
					for _, b := range c.Latency.Buckets {
						inBuckets += b.Count
					}
					for _, n := range c.Outcomes {
						byOutcome += n
					}
					if inBuckets != c.Total || byOutcome != c.Total {
						t.Errorf("%s %s: total %d, buckets %d, outcomes %d; want them equal", p.Plugin, c.Event, c.Total, inBuckets, byOutcome)
					}
				}
			}
		})
	}
}

// eventCallsOf is plugin's count of event in Status.
func eventCallsOf(t *testing.T, a *adaptation.Adaptation, plugin, event string) adaptation.EventCalls {
	t.Helper()
	for _, p := range a.Status().Plugins {
		if p.Plugin != plugin {
			continue
		}
		for _, c := range p.Calls {
			if c.Event == event {
				return c
			}
		}
		return adaptation.EventCalls{}
	}
	t.Fatalf("%s is not among the active plugins", plugin)
	return adaptation.EventCalls{}
}

// TestInteropCallerDeadlineIsNotAPluginFailure is the reference's own
// failure-policy case "a runtime deadline is not a plugin failure", with a
// reference-stub plugin: request timeout 100 ms, a caller's deadline of
// 25 ms (shorter than the 100 ms deadline_reserve), a fail_request,
// keep_connected plugin that needs 60 ms. The pod fails with the caller's
// deadline, whose error names no plugin; the plugin was called (the short
// deadline is shared, not spent on the reserve alone), is kept, and
// answers the next pod.
func TestInteropCallerDeadlineIsNotAPluginFailure(t *testing.T) {
	e := newEnv(t, adaptation.WithRequestTimeout(100*time.Millisecond))
	e.refPreinstall("modern", "00", "slow", "events=RunPodSandbox", "delay=RunPodSandbox:60ms",
		"failure_policy=fail_request,keep_connected")
	e.start()
	e.waitPlugins("00-slow")

	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Millisecond)
	defer cancel()
	err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: testPod("pod0")})
	if !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "00-slow") {
		t.Fatalf("RunPodSandbox under a 25 ms deadline = %v, want context.DeadlineExceeded naming no plugin", err)
	}
	if err := e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: testPod("pod1")}); err != nil {
		t.Fatalf("the next pod: %v", err)
	}
	e.waitPlugins("00-slow")
	var pods []string
	for _, r := range e.refRecords("00-slow") {
		if r.Event == "RunPodSandbox" {
			pods = append(pods, r.Pod)
		}
	}
	if !slices.Equal(pods, []string{"pod0", "pod1"}) {
		t.Errorf("00-slow got RunPodSandbox of %v, want pod0 (cut by the caller's deadline) and pod1", pods)
	}
}
