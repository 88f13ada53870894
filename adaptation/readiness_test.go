// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

const (
	gateIdx, gateName = "10", "gate"
	gateID            = gateIdx + "-" + gateName
	tolerateKey       = "example.com/tolerate-missing-plugins"
)

// readinessOptions: the plugin "gate" is required on the node, and pods wait
// for it up to wait.
func readinessOptions(wait time.Duration, onTimeout adaptation.ReadinessTimeoutAction, more ...adaptation.Option) []adaptation.Option {
	return append([]adaptation.Option{
		adaptation.WithDefaultValidator(&validator.DefaultValidatorConfig{
			Enable: true, RequiredPlugins: []string{gateName}, TolerateMissingAnnotation: tolerateKey,
		}),
		adaptation.WithPluginReadiness(adaptation.ReadinessConfig{
			Wait: adaptation.Duration(wait), OnTimeout: onTimeout, ExemptNamespaces: []string{"kube-system"},
		}),
	}, more...)
}

func runPod(a *adaptation.Adaptation, pod *api.PodSandbox) error {
	return a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: pod})
}

// An absent required plugin makes AwaitPlugins fail after wait, naming it,
// and RunPodSandbox without AwaitPlugins fails the same pod.
func TestAwaitPluginsFailsAfterWaitNamingTheAbsentPlugin(t *testing.T) {
	const wait = time.Second
	e := newEnv(t, readinessOptions(wait, adaptation.ReadinessFail)...)
	e.start()
	pod := testPod("p1")
	start := time.Now()
	err := e.a.AwaitPlugins(context.Background(), pod)
	took := time.Since(start)
	if !errors.Is(err, adaptation.ErrPluginsNotReady) || !strings.Contains(err.Error(), `"gate" never connected`) {
		t.Fatalf("AwaitPlugins: %v, want ErrPluginsNotReady saying gate never connected", err)
	}
	if took < wait || took > wait+500*time.Millisecond {
		t.Errorf("AwaitPlugins returned after %v, want %v (+ a margin)", took, wait)
	}
	if err := runPod(e.a, pod); !errors.Is(err, adaptation.ErrPluginsNotReady) {
		t.Errorf("RunPodSandbox without the required plugin: %v, want ErrPluginsNotReady", err)
	}
	r := e.a.Readiness()
	c := r.Condition()
	if r.Ready || len(r.Missing) != 1 || r.Missing[0].State != adaptation.MissingNeverConnected ||
		c.Type != adaptation.ConditionPluginsReady || c.Status || c.Reason == "" || !strings.Contains(c.Message, "gate") {
		t.Errorf("Readiness %+v, condition %+v: want not ready, gate never connected", r, c)
	}
}

// Under "proceed" the pod goes on at the bound, with a warning from
// AwaitPlugins and one from RunPodSandbox, and is counted once, as it is
// created.
func TestAwaitPluginsProceedsAndCounts(t *testing.T) {
	e := newEnv(t, readinessOptions(200*time.Millisecond, adaptation.ReadinessProceed)...)
	e.start()
	pod := testPod("p1")
	if err := e.a.AwaitPlugins(context.Background(), pod); err != nil {
		t.Fatalf("AwaitPlugins under proceed: %v", err)
	}
	if got := e.a.Readiness().Proceeded; got != 0 {
		t.Errorf("Readiness().Proceeded = %d after AwaitPlugins, want 0 until the pod is created", got)
	}
	if err := runPod(e.a, pod); err != nil {
		t.Fatalf("RunPodSandbox under proceed: %v", err)
	}
	if got := e.a.Readiness().Proceeded; got != 1 {
		t.Errorf("Readiness().Proceeded = %d, want 1: one pod", got)
	}
	if len(e.logged(map[string]any{"pod": "default/pod-p1"})) != 2 {
		e.dumpLog()
		t.Error("want a warning for each")
	}
}

// A required plugin that connects after 2 s lets AwaitPlugins return then,
// and gets exactly one RunPodSandbox for the pod.
func TestAwaitPluginsReturnsWhenTheRequiredPluginConnects(t *testing.T) {
	e := newEnv(t, readinessOptions(20*time.Second, adaptation.ReadinessFail)...)
	e.start()
	pod := testPod("p1")
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- e.a.AwaitPlugins(context.Background(), pod) }()
	<-time.After(2 * time.Second) // the scenario: the plugin comes 2 s later
	select {
	case err := <-done:
		t.Fatalf("AwaitPlugins returned %v before the plugin connected", err)
	default:
	}
	e.external(gateIdx, gateName, testplugin.Config{})
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("AwaitPlugins: %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("AwaitPlugins did not return once the plugin joined")
	}
	if took := time.Since(start); took < 2*time.Second {
		t.Errorf("AwaitPlugins returned after %v, before the plugin connected", took)
	}
	if !e.a.Readiness().Ready {
		t.Error("Readiness not ready with the plugin active")
	}
	if err := runPod(e.a, pod); err != nil {
		t.Fatalf("RunPodSandbox: %v", err)
	}
	if got := testplugin.Find(e.records(), gateName, "RunPodSandbox"); len(got) != 1 || got[0].Pod != pod.GetId() {
		t.Errorf("the plugin got RunPodSandbox %+v, want exactly one for %s", got, pod.GetId())
	}
}

// Exempt and tolerating pods pass at once, and so does every pod when the
// required plugin is active; none of these allocate.
func TestAwaitPluginsPassesAtOnceWithoutAllocating(t *testing.T) {
	e := newEnv(t, readinessOptions(20*time.Second, adaptation.ReadinessFail)...)
	e.start()
	ctx := context.Background()
	exempt := testPod("sys")
	exempt.Namespace = "kube-system"
	tolerating := testPod("tol")
	tolerating.Annotations = map[string]string{tolerateKey + "/pod": "true"}
	for _, pod := range []*api.PodSandbox{exempt, tolerating} {
		start := time.Now()
		if err := e.a.AwaitPlugins(ctx, pod); err != nil {
			t.Fatalf("AwaitPlugins(%s): %v", pod.GetId(), err)
		}
		if took := time.Since(start); took > 100*time.Millisecond {
			t.Errorf("AwaitPlugins(%s) took %v, want at once", pod.GetId(), took)
		}
		if err := runPod(e.a, pod); err != nil {
			t.Errorf("RunPodSandbox(%s): %v", pod.GetId(), err)
		}
		if n := testing.AllocsPerRun(100, func() { _ = e.a.AwaitPlugins(ctx, pod) }); n != 0 {
			t.Errorf("AwaitPlugins(%s) allocates %v times", pod.GetId(), n)
		}
	}
	e.external(gateIdx, gateName, testplugin.Config{})
	e.waitPlugins(gateID)
	pod := testPod("p1")
	if n := testing.AllocsPerRun(100, func() {
		if err := e.a.AwaitPlugins(ctx, pod); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("AwaitPlugins with the required plugin active allocates %v times", n)
	}
}

// A pod's annotation adds to what it waits for.
func TestAwaitPluginsWaitsForAnnotatedPlugins(t *testing.T) {
	e := newEnv(t, readinessOptions(300*time.Millisecond, adaptation.ReadinessFail)...)
	e.start()
	e.external(gateIdx, gateName, testplugin.Config{})
	e.waitPlugins(gateID)
	pod := testPod("p1")
	pod.Annotations = map[string]string{validator.RequiredPlugins + "/pod": "[extra]"}
	err := e.a.AwaitPlugins(context.Background(), pod)
	if !errors.Is(err, adaptation.ErrPluginsNotReady) || !strings.Contains(err.Error(), `"extra"`) || strings.Contains(err.Error(), `"gate"`) {
		t.Errorf("AwaitPlugins: %v, want ErrPluginsNotReady naming extra alone", err)
	}
	pod.Annotations[validator.RequiredPlugins+"/pod"] = "{"
	if err := e.a.AwaitPlugins(context.Background(), pod); err == nil || !strings.Contains(err.Error(), "not a YAML list") {
		t.Errorf("AwaitPlugins with a bad annotation: %v", err)
	}
}

// Before Start and after Stop, AwaitPlugins fails at once saying so.
func TestAwaitPluginsFailsAtOnceWhenNotStarted(t *testing.T) {
	e := newEnv(t, readinessOptions(20*time.Second, adaptation.ReadinessFail)...)
	check := func(when string) {
		t.Helper()
		start := time.Now()
		err := e.a.AwaitPlugins(context.Background(), testPod("p1"))
		if !errors.Is(err, adaptation.ErrPluginsNotReady) || !strings.Contains(err.Error(), "not started") {
			t.Errorf("AwaitPlugins %s: %v, want it to say NRI is not started", when, err)
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("AwaitPlugins %s took %v", when, took)
		}
	}
	check("before Start")
	e.start()
	e.stop()
	check("after Stop")
}

// The context's deadline, less a reserve, bounds the wait.
func TestAwaitPluginsEndsBeforeTheCallersDeadline(t *testing.T) {
	e := newEnv(t, readinessOptions(20*time.Second, adaptation.ReadinessFail)...)
	e.start()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := e.a.AwaitPlugins(ctx, testPod("p1"))
	if !errors.Is(err, adaptation.ErrPluginsNotReady) || ctx.Err() != nil {
		t.Errorf("AwaitPlugins: %v (context: %v), want ErrPluginsNotReady before the context ends", err, ctx.Err())
	}
}

// The wait leaves the caller's deadline deadline_reserve as set, not a
// fixed share: with a reserve of 1 s and nothing else to wait for, it ends
// a second before the deadline.
func TestAwaitPluginsHonoursTheDeadlineReserve(t *testing.T) {
	const reserve = time.Second
	e := newEnv(t, readinessOptions(20*time.Second, adaptation.ReadinessFail, adaptation.WithDeadlineReserve(reserve))...)
	e.start()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err := e.a.AwaitPlugins(ctx, testPod("p1"))
	deadline, _ := ctx.Deadline()
	if !errors.Is(err, adaptation.ErrPluginsNotReady) {
		t.Fatalf("AwaitPlugins: %v, want ErrPluginsNotReady", err)
	}
	// Half the reserve is the margin for a loaded machine; a wait that left
	// only the default 100 ms would be far past it.
	if left := time.Until(deadline); left < reserve/2 {
		t.Errorf("AwaitPlugins left %v of the caller's deadline, want about the %v reserve", left, reserve)
	}
}

// A pod let through at the bound under "proceed" still gets its
// RunPodSandbox within the same deadline: the wait left it the reserve and
// the time of the plugins that take RunPodSandbox, so the plugin present is
// reached and the pod is created.
func TestAwaitPluginsLeavesRunPodSandboxItsTime(t *testing.T) {
	const timeout = 500 * time.Millisecond
	e := newEnv(t, readinessOptions(10*time.Second, adaptation.ReadinessProceed, adaptation.WithRequestTimeout(timeout))...)
	e.start()
	e.external("20", "other", testplugin.Config{})
	e.waitPlugins("20-other")
	pod := testPod("p1")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := e.a.AwaitPlugins(ctx, pod); err != nil {
		t.Fatalf("AwaitPlugins under proceed: %v", err)
	}
	if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		e.dumpLog()
		t.Fatalf("RunPodSandbox after AwaitPlugins let the pod through: %v", err)
	}
	if got := testplugin.Find(e.records(), "other", "RunPodSandbox"); len(got) != 1 || got[0].Pod != pod.GetId() {
		t.Errorf("the plugin got RunPodSandbox %+v, want one for %s", got, pod.GetId())
	}
}

// A required plugin whose sync back-off outlasts the wait fails the pod at
// once, saying until when.
func TestAwaitPluginsFailsAtOnceForABackoffBeyondTheBound(t *testing.T) {
	e := newEnv(t, readinessOptions(5*time.Second, adaptation.ReadinessFail, adaptation.WithSyncTimeout(300*time.Millisecond))...)
	e.start()
	e.external(gateIdx, gateName, testplugin.Config{Behaviours: map[string]testplugin.Behaviour{testplugin.KeySynchronize: {Hang: true}}})
	deadline := time.After(waitLimit)
	for {
		logged := e.logSignal.changed()
		if m := e.a.Readiness().Missing; len(m) == 1 && m[0].State == adaptation.MissingSyncBackoff {
			break
		}
		select {
		case <-logged:
		case <-deadline:
			e.dumpLog()
			t.Fatalf("the plugin did not enter its back-off: %+v", e.a.Readiness())
		}
	}
	start := time.Now()
	err := e.a.AwaitPlugins(context.Background(), testPod("p1"))
	if !errors.Is(err, adaptation.ErrPluginsNotReady) || !strings.Contains(err.Error(), "sync back-off until") {
		t.Errorf("AwaitPlugins: %v, want ErrPluginsNotReady telling the back-off", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("AwaitPlugins took %v, want at once", took)
	}
}

// A required plugin that sleeps past its timeout in RunPodSandbox fails the
// sandbox; a plugin that is not required does not, though neither declares
// fail_request.
func TestRunPodSandboxFailsOnARequiredPluginsTimeout(t *testing.T) {
	slow := testplugin.Config{Behaviours: map[string]testplugin.Behaviour{"RunPodSandbox": {Delay: "2s"}}}
	dies := testplugin.Config{Behaviours: map[string]testplugin.Behaviour{"RunPodSandbox": {Exit: 1}}}
	for _, tc := range []struct {
		name     string
		slowOne  string
		behave   testplugin.Config
		wantFail bool
		wantErr  error
	}{
		{"required times out", gateName, slow, true, adaptation.ErrPluginTimeout},
		{"not required times out", "other", slow, false, nil},
		{"required dies", gateName, dies, true, nil},
		{"not required dies", "other", dies, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, readinessOptions(5*time.Second, adaptation.ReadinessFail, adaptation.WithRequestTimeout(300*time.Millisecond))...)
			e.start()
			for _, name := range []string{gateName, "other"} {
				cfg := testplugin.Config{}
				if name == tc.slowOne {
					cfg = tc.behave
				}
				e.external(map[string]string{gateName: gateIdx, "other": "20"}[name], name, cfg)
			}
			e.waitPlugins(gateID, "20-other")
			pod := testPod("p1")
			if err := e.a.AwaitPlugins(context.Background(), pod); err != nil {
				t.Fatal(err)
			}
			err := runPod(e.a, pod)
			if failed := err != nil; failed != tc.wantFail {
				t.Errorf("RunPodSandbox with %s sleeping: %v, want failure %v", tc.slowOne, err, tc.wantFail)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("RunPodSandbox: %v, want the plugin's timeout", err)
			}
			// The operator sees why a plugin without fail_request failed the pod.
			raised := e.logged(map[string]any{"failure_policy": "fail_request (a required plugin of the pod, plugin_readiness)"})
			if (len(raised) > 0) != tc.wantFail {
				e.dumpLog()
				t.Errorf("%d log lines say the pod raised the plugin's policy to fail_request, want some: %v", len(raised), tc.wantFail)
			}
		})
	}
}

// Under "proceed", a required plugin that is kept connected after timing
// out in RunPodSandbox did not take part in the pod's creation: the pod goes
// on with a warning that says so and is counted, while Readiness, which is
// about the plugin being active, stays ready.
func TestRunPodSandboxWarnsOfARequiredPluginThatDidNotAnswer(t *testing.T) {
	e := newEnv(t, readinessOptions(5*time.Second, adaptation.ReadinessProceed, adaptation.WithRequestTimeout(300*time.Millisecond))...)
	e.start()
	e.external(gateIdx, gateName, testplugin.Config{
		FailurePolicy: &testplugin.FailurePolicy{KeepConnected: true},
		Behaviours:    map[string]testplugin.Behaviour{"RunPodSandbox": {Hang: true}},
	})
	e.waitPlugins(gateID)
	pod := testPod("p1")
	if err := e.a.AwaitPlugins(context.Background(), pod); err != nil {
		t.Fatalf("AwaitPlugins with the plugin active: %v", err)
	}
	if err := runPod(e.a, pod); err != nil {
		t.Fatalf("RunPodSandbox under proceed: %v", err)
	}
	warned := false
	for _, en := range e.logged(map[string]any{"pod": "default/pod-p1"}) {
		warned = warned || strings.Contains(fmt.Sprint(en.Data["missing"]), `"gate" (10-gate) did not answer RunPodSandbox`)
	}
	if !warned {
		e.dumpLog()
		t.Error("no warning that the required plugin did not answer RunPodSandbox")
	}
	r := e.a.Readiness()
	if r.Proceeded != 1 || !r.Ready || len(r.Missing) != 0 {
		t.Errorf("Readiness %+v, want ready with one pod proceeded", r)
	}
	if got := e.a.Plugins(); len(got) != 1 || got[0].Plugin != gateID {
		t.Errorf("plugins %+v, want the timed-out plugin kept", got)
	}
}

// A required plugin the lifecycle contract rightly does not call again for
// a pod it already knows has not failed to answer: a repeated
// RunPodSandbox for the same pod succeeds, and the plugin had one.
func TestRunPodSandboxAcceptsARequiredPluginThatKnewThePod(t *testing.T) {
	e := newEnv(t, readinessOptions(5*time.Second, adaptation.ReadinessFail)...)
	e.start()
	e.external(gateIdx, gateName, testplugin.Config{})
	e.waitPlugins(gateID)
	pod := testPod("p1")
	for i := range 2 {
		if err := runPod(e.a, pod); err != nil {
			t.Fatalf("RunPodSandbox #%d: %v", i+1, err)
		}
	}
	if got := testplugin.Find(e.records(), gateName, "RunPodSandbox"); len(got) != 1 {
		t.Errorf("the plugin got RunPodSandbox %d times, want once", len(got))
	}
}

// A RunPodSandbox with a deadline reads the pod's required-plugins
// annotation once, not again for each plugin's share of the deadline: with
// 16 plugins, a pod that has the annotation costs a RunPodSandbox no more
// than a few allocations over one that has none.
func TestRunPodSandboxReadsThePodsRequirementOnce(t *testing.T) {
	const n = 16
	var builtins []adaptation.BuiltinPlugin
	for i := range n {
		builtins = append(builtins, adaptation.BuiltinPlugin{Index: fmt.Sprintf("%02d", i), Name: fmt.Sprintf("p%02d", i),
			Handler: api.PluginBase{Events: api.MaskOf(api.Event_RUN_POD_SANDBOX)}})
	}
	e := newEnv(t, adaptation.WithBuiltinPlugins(builtins...),
		adaptation.WithDefaultValidator(&validator.DefaultValidatorConfig{Enable: true, RequiredPlugins: []string{"p00"}}),
		adaptation.WithPluginReadiness(adaptation.ReadinessConfig{Wait: adaptation.Duration(5 * time.Second)}))
	e.start()
	seq := 0
	allocs := func(annotations map[string]string) float64 {
		return testing.AllocsPerRun(200, func() {
			seq++
			pod := testPod(fmt.Sprintf("p%d", seq))
			pod.Annotations = annotations
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
				t.Fatal(err)
			}
		})
	}
	plain := allocs(nil)
	annotated := allocs(map[string]string{validator.RequiredPlugins + "/pod": "[p01]"})
	// One reading of a one-item YAML list costs about a hundred
	// allocations; reading it for each plugin and each later plugin cost
	// some forty times that.
	if extra := annotated - plain; extra > 400 {
		t.Errorf("a pod with the annotation costs RunPodSandbox %.0f more allocations (%.0f against %.0f), want one reading of it", extra, annotated, plain)
	}
}

// A required plugin killed while 20 pods are created concurrently by a
// runtime that locks as containerd does (a BlockPluginSync block, then its
// NRI lock) or as CRI-O does (its NRI lock alone), and restarted 3 s later:
// with the gate, every pod is waiting when it comes back, and reaches the
// new instance; without it, they go on without it.
func TestReadinessRidesOutARequiredPluginsRestart(t *testing.T) {
	for _, tc := range []struct {
		runtime string
		blocks  bool
		gated   bool
	}{
		{"containerd", true, true}, {"containerd", true, false},
		{"crio", false, true}, {"crio", false, false},
	} {
		gated := tc.gated
		t.Run(fmt.Sprintf("%s/gated=%v", tc.runtime, gated), func(t *testing.T) {
			wait := time.Duration(0)
			if gated {
				wait = 20 * time.Second
			}
			e := newEnv(t, readinessOptions(wait, adaptation.ReadinessFail)...)
			r := newRuntimeDouble(t, e, false, tc.blocks)
			const pods = 20
			waiting := make(chan struct{}, pods)
			adaptation.WatchReadinessWaiters(e.a, func() { waiting <- struct{}{} })
			e.start()
			old := e.external(gateIdx, gateName, testplugin.Config{})
			e.waitPlugins(gateID)
			if err := old.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			e.waitPlugins()
			errs := make(chan error, pods)
			var wg sync.WaitGroup
			for i := range pods {
				wg.Add(1)
				go func() {
					defer wg.Done()
					pod := testPod(fmt.Sprintf("p%d", i))
					ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
					defer cancel()
					if gated { // before the runtime's lock and block, as the porting guide says
						if err := e.a.AwaitPlugins(ctx, pod); err != nil {
							errs <- err
							return
						}
					}
					errs <- r.event(func() error {
						err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod})
						if err == nil {
							r.putPod(pod, api.PodSandboxState_POD_SANDBOX_READY)
						}
						return err
					})
				}()
			}
			if !gated {
				wg.Wait() // they all went ahead before the restart
			}
			<-time.After(3 * time.Second) // the scenario: the plugin is back 3 s later
			if gated {
				for range pods {
					select {
					case <-waiting:
					case <-time.After(waitLimit):
						t.Fatal("the pods did not all wait for the plugin")
					}
				}
				if n := len(errs); n != 0 || e.a.Readiness().Ready {
					t.Fatalf("as the plugin comes back, %d pods have returned (Readiness %+v), want all 20 waiting", n, e.a.Readiness())
				}
			}
			e.external(gateIdx, gateName, testplugin.Config{})
			wg.Wait()
			close(errs)
			for err := range errs {
				if gated && err != nil {
					t.Errorf("pod creation with the gate: %v", err)
				}
				if !gated && err != nil {
					t.Errorf("pod creation without the gate: %v, want it to go on without the plugin", err)
				}
			}
			e.waitPlugins(gateID)
			reached := map[string]bool{}
			for _, rec := range testplugin.Find(e.records(), gateName, "RunPodSandbox") {
				reached[rec.Pod] = true
			}
			if gated && len(reached) != pods {
				t.Errorf("the new instance got RunPodSandbox for %d pods, want all %d", len(reached), pods)
			}
			if !gated && len(reached) != 0 {
				t.Errorf("without the gate, the new instance got RunPodSandbox for %d pods created before it came", len(reached))
			}
		})
	}
}

// AwaitPlugins called under the runtime's NRI lock, which SyncFn takes (or
// inside a BlockPluginSync block), returns at its bound instead of hanging,
// and the hint that says so is logged once however many pods wait.
func TestAwaitPluginsUnderTheRuntimesLockHints(t *testing.T) {
	for _, held := range []string{"lock", "block"} {
		t.Run(held, func(t *testing.T) {
			const wait = 2 * time.Second
			e := newEnv(t, readinessOptions(wait, adaptation.ReadinessFail)...)
			r := newRuntimeDouble(t, e, false, false)
			r.syncing = make(chan struct{})
			e.start()
			var release func()
			if held == "lock" {
				r.mu.Lock()
				release = r.mu.Unlock
			} else {
				release = e.a.BlockPluginSync().Unblock
			}
			e.external(gateIdx, gateName, testplugin.Config{})
			if held == "lock" {
				select { // the plugin registered and SyncFn waits for the lock
				case <-r.syncing:
				case <-time.After(waitLimit):
					t.Fatal("SyncFn was not called")
				}
			}
			const waiters = 3
			errs := make(chan error, waiters)
			start := time.Now()
			for i := range waiters {
				go func() { errs <- e.a.AwaitPlugins(context.Background(), testPod(fmt.Sprintf("p%d", i))) }()
			}
			for range waiters {
				select {
				case err := <-errs:
					if !errors.Is(err, adaptation.ErrPluginsNotReady) || !strings.Contains(err.Error(), "synchronizing since") {
						t.Errorf("AwaitPlugins under the %s: %v, want ErrPluginsNotReady saying it synchronizes", held, err)
					}
				case <-time.After(waitLimit):
					t.Fatalf("AwaitPlugins under the %s hangs", held)
				}
			}
			if took := time.Since(start); took > wait+time.Second {
				t.Errorf("AwaitPlugins under the %s returned after %v, want its bound %v", held, took, wait)
			}
			release()
			e.waitPlugins(gateID)
			hints := 0
			for _, en := range e.hook.AllEntries() {
				if strings.Contains(en.Message, "AwaitPlugins is probably called under a lock") {
					hints++
					if en.Data["plugin"] != gateID {
						t.Errorf("the hint names %v, want %s", en.Data["plugin"], gateID)
					}
				}
			}
			if hints != 1 {
				e.dumpLog()
				t.Errorf("the hint was logged %d times, want once", hints)
			}
		})
	}
}

// Readiness flips false when a required plugin leaves and true when it is
// back, telling the runtime's callback each time; a new instance replacing
// the old one flips nothing.
func TestReadinessFlipsAndReplacementDoesNotFlicker(t *testing.T) {
	flips := make(chan adaptation.Readiness, 16)
	replaced := make(chan struct{}, 1)
	e := newEnv(t, readinessOptions(0, "",
		adaptation.WithReadinessChanges(func(r adaptation.Readiness) { flips <- r }),
		adaptation.WithPluginChanges(func(c adaptation.PluginChange) {
			if c.Change == adaptation.PluginLeft && c.Reason == adaptation.ReasonReplaced {
				replaced <- struct{}{}
			}
		}))...)
	next := func(want bool) adaptation.Readiness {
		t.Helper()
		select {
		case r := <-flips:
			if r.Ready != want {
				t.Fatalf("flip to %v (%+v), want %v", r.Ready, r, want)
			}
			return r
		case <-time.After(waitLimit):
			t.Fatalf("no flip to %v", want)
		}
		return adaptation.Readiness{}
	}
	if e.a.Readiness().Ready {
		t.Error("ready before Start")
	}
	e.start()
	e.external(gateIdx, gateName, testplugin.Config{})
	e.waitPlugins(gateID)
	up := next(true)
	second := e.external(gateIdx, gateName, testplugin.Config{}) // replaces the first
	select {                                                     // the old instance's departure is reported, after Readiness saw it
	case <-replaced:
	case <-time.After(waitLimit):
		t.Fatal("the first instance was not replaced")
	}
	if r := e.a.Readiness(); !r.Ready || !r.Since.Equal(up.Since) {
		t.Errorf("after the replacement: %+v, want ready since %v", r, up.Since)
	}
	if err := second.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	down := next(false)
	if len(down.Missing) != 1 || down.Missing[0].State != adaptation.MissingLeft || down.Missing[0].Plugin != gateID ||
		!strings.Contains(down.Missing[0].Reason, "connection lost") {
		t.Errorf("after the plugin was lost: %+v, want it to say gate left", down)
	}
	select {
	case r := <-flips:
		t.Errorf("a flip during the replacement: %+v", r)
	default:
	}
	e.external(gateIdx, gateName, testplugin.Config{})
	next(true)
}

func TestReadinessConfigRefusals(t *testing.T) {
	on := &validator.DefaultValidatorConfig{Enable: true, RequiredPlugins: []string{gateName}}
	for _, tc := range []struct {
		cfg  adaptation.Config
		want string
	}{
		{adaptation.Config{DefaultValidator: on, PluginReadiness: &adaptation.ReadinessConfig{SetupReserve: adaptation.Duration(-time.Second)}}, "plugin_readiness.setup_reserve: -1s is negative"},
		{adaptation.Config{DefaultValidator: on, PluginReadiness: &adaptation.ReadinessConfig{OnTimeout: "wait"}}, "plugin_readiness.on_timeout"},
		{adaptation.Config{DefaultValidator: on, PluginReadiness: &adaptation.ReadinessConfig{Wait: adaptation.Duration(3 * time.Minute)}}, "plugin_readiness.wait: 3m0s is beyond 2m0s"},
		{adaptation.Config{DefaultValidator: on, PluginReadiness: &adaptation.ReadinessConfig{Wait: adaptation.Duration(-time.Second)}}, "plugin_readiness.wait"},
		{adaptation.Config{DefaultValidator: on, PluginReadiness: &adaptation.ReadinessConfig{ExemptNamespaces: []string{"kube-system", ""}}}, "plugin_readiness.exempt_namespaces: empty"},
	} {
		_, err := adaptation.New("r", "v", nil, nil, tc.cfg.Options()...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v): %v, want an error saying %q", tc.cfg.PluginReadiness, err, tc.want)
		}
	}
	ok := adaptation.Config{DefaultValidator: on, PluginReadiness: &adaptation.ReadinessConfig{
		Wait: adaptation.Duration(10 * time.Second), OnTimeout: adaptation.ReadinessProceed, ExemptNamespaces: []string{"kube-system"}}}
	if _, err := adaptation.New("r", "v", nil, nil, append(ok.Options(), adaptation.WithDisabledExternalConnections())...); err != nil {
		t.Errorf("New with a valid plugin_readiness: %v", err)
	}
}

// RestartPlugin of a required pre-installed plugin does not flip Readiness:
// its gap is a replacement, as one instance replacing another is.
func TestReadinessDoesNotFlickerOnRestartPlugin(t *testing.T) {
	flips := make(chan adaptation.Readiness, 16)
	e := newEnv(t, readinessOptions(0, "", adaptation.WithReadinessChanges(func(r adaptation.Readiness) { flips <- r }))...)
	e.preinstall(gateIdx, gateName, testplugin.Config{})
	e.start()
	e.waitPlugins(gateID)
	select {
	case r := <-flips:
		if !r.Ready {
			t.Fatalf("first flip %+v, want ready", r)
		}
	case <-time.After(waitLimit):
		t.Fatal("no flip to ready")
	}
	if err := e.a.RestartPlugin(context.Background(), gateID); err != nil {
		t.Fatal(err)
	}
	stopping := time.Now()
	e.stop() // flips to not ready, after any flip the restart made
	select {
	case r := <-flips:
		if r.Ready || r.Since.Before(stopping) {
			t.Errorf("a flip during RestartPlugin: %+v (Stop began at %v)", r, stopping)
		}
	case <-time.After(waitLimit):
		t.Fatal("no flip at Stop")
	}
}
