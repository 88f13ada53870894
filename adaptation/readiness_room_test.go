// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestReadinessGateStandsAlone: the plugin_readiness table needs no other
// key. With no default_validator table, a pod waits for the plugins its
// annotation names; with the table present but the validator not enabled,
// also for its required_plugins, and its tolerate annotation still lets a
// pod through. RunPodSandbox checks the same pods.
func TestReadinessGateStandsAlone(t *testing.T) {
	wait := adaptation.ReadinessConfig{Wait: adaptation.Duration(300 * time.Millisecond)}
	t.Run("annotation alone", func(t *testing.T) {
		cfg := adaptation.Config{PluginReadiness: &wait}
		e := newEnv(t, cfg.Options()...)
		e.start()
		pod := testPod("annotated")
		pod.Annotations = map[string]string{validator.RequiredPlugins: "[gate]"}
		err := e.a.AwaitPlugins(context.Background(), pod)
		if !errors.Is(err, adaptation.ErrPluginsNotReady) || !strings.Contains(err.Error(), `"gate" never connected`) {
			t.Errorf("AwaitPlugins: %v, want ErrPluginsNotReady for the annotated plugin", err)
		}
		if err := runPod(e.a, pod); !errors.Is(err, adaptation.ErrPluginsNotReady) {
			t.Errorf("RunPodSandbox: %v, want ErrPluginsNotReady", err)
		}
		if err := e.a.AwaitPlugins(context.Background(), testPod("plain")); err != nil {
			t.Errorf("AwaitPlugins of a pod that requires nothing: %v", err)
		}
		e.external(gateIdx, gateName, testplugin.Config{})
		e.waitPlugins(gateID)
		if err := e.a.AwaitPlugins(context.Background(), pod); err != nil {
			t.Errorf("AwaitPlugins once the plugin joined: %v", err)
		}
	})
	t.Run("validator table not enabled", func(t *testing.T) {
		cfg := adaptation.Config{PluginReadiness: &wait, DefaultValidator: &validator.DefaultValidatorConfig{
			RequiredPlugins: []string{gateName}, TolerateMissingAnnotation: tolerateKey}}
		e := newEnv(t, cfg.Options()...)
		e.start()
		if err := e.a.AwaitPlugins(context.Background(), testPod("p")); !errors.Is(err, adaptation.ErrPluginsNotReady) {
			t.Errorf("AwaitPlugins: %v, want ErrPluginsNotReady for required_plugins", err)
		}
		tolerant := testPod("tolerant")
		tolerant.Annotations = map[string]string{tolerateKey: "true"}
		if err := e.a.AwaitPlugins(context.Background(), tolerant); err != nil {
			t.Errorf("AwaitPlugins of a tolerant pod: %v", err)
		}
		if r := e.a.Readiness(); r.Ready || len(r.Missing) != 1 {
			t.Errorf("Readiness %+v, want not ready, missing gate", r)
		}
		// The validator itself stays off: a container is created without
		// the required plugin.
		pod := testPod("c")
		if _, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("c-c", pod)}); err != nil {
			t.Errorf("CreateContainer with the validator off: %v", err)
		}
	})
}

// TestAwaitPluginsLateJoinNeverEndsInDeadlineExceeded is the issue's
// scenario, scaled down: a 2 s CRI call, a required plugin with a 300 ms
// request timeout joining while the pod waits, setup_reserve 250 ms (the
// runtime's work before its RunPodSandbox, emulated by taking 220 ms off
// the deadline RunPodSandbox gets). Joining early, the pod is created and
// the plugin answers its RunPodSandbox; joining after the bound (the
// deadline less 650 ms: setup, the plugin's timeout, deadline_reserve), the
// pod fails at the bound with the gate's error; in between, either, never
// DeadlineExceeded after the runtime built the sandbox.
func TestAwaitPluginsLateJoinNeverEndsInDeadlineExceeded(t *testing.T) {
	const call, setup = 2 * time.Second, 220 * time.Millisecond
	for _, tc := range []struct {
		name   string
		joinAt time.Duration
		want   string // "created", "gate" or "" for either
	}{
		{"early", 300 * time.Millisecond, "created"},
		{"near the bound", 1300 * time.Millisecond, ""},
		{"after the bound", 1600 * time.Millisecond, "gate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := adaptation.Config{
				PluginReadiness: &adaptation.ReadinessConfig{Wait: adaptation.Duration(10 * time.Second),
					SetupReserve: adaptation.Duration(250 * time.Millisecond)},
				PluginSettings: map[string]adaptation.PluginSettings{gateName: {RequestTimeout: adaptation.Duration(300 * time.Millisecond)}},
			}
			e := newEnv(t, cfg.Options()...)
			e.start()
			pod := testPod("late")
			pod.Annotations = map[string]string{validator.RequiredPlugins: "[gate]"}
			ctx, cancel := context.WithTimeout(context.Background(), call)
			defer cancel()
			deadline, _ := ctx.Deadline()
			start := time.Now()
			type result struct {
				err  error
				left time.Duration // of the caller's deadline, when it returned
			}
			awaited := make(chan result, 1)
			go func() {
				err := e.a.AwaitPlugins(ctx, pod)
				awaited <- result{err, time.Until(deadline)}
			}()
			<-time.After(tc.joinAt)
			e.external(gateIdx, gateName, testplugin.Config{})
			res := <-awaited
			if err := res.err; err != nil {
				if !errors.Is(err, adaptation.ErrPluginsNotReady) || errors.Is(err, context.DeadlineExceeded) || tc.want == "created" {
					t.Fatalf("AwaitPlugins after %v = %v, want the pod let through or the gate's error", time.Since(start), err)
				}
				if res.left < 500*time.Millisecond {
					t.Errorf("the gate's error came with %v left, want at its bound (650 ms left)", res.left)
				}
				return
			}
			if tc.want == "gate" {
				t.Fatalf("AwaitPlugins let the pod through although its plugin joined after the bound")
			}
			built, cancelBuilt := context.WithDeadline(ctx, deadline.Add(-setup))
			defer cancelBuilt()
			if err := e.a.RunPodSandbox(built, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
				e.dumpLog()
				t.Fatalf("RunPodSandbox after the sandbox was built: %v", err)
			}
			if got := testplugin.Find(e.records(), gateName, "RunPodSandbox"); len(got) != 1 {
				t.Errorf("the plugin got RunPodSandbox %d times, want once", len(got))
			}
		})
	}
}

// TestNRIPluginsReadyFollowsPodsThatLackedAPlugin: with no node-level
// required plugin, NRIPluginsReady turns false once a pod whose annotation
// requires an absent plugin is held and fails, says which plugin and which
// pod, and turns true again when that plugin joins.
func TestNRIPluginsReadyFollowsPodsThatLackedAPlugin(t *testing.T) {
	cfg := adaptation.Config{PluginReadiness: &adaptation.ReadinessConfig{Wait: adaptation.Duration(100 * time.Millisecond)}}
	flips := make(chan adaptation.Readiness, 16)
	e := newEnv(t, append(cfg.Options(), adaptation.WithReadinessChanges(func(r adaptation.Readiness) { flips <- r }))...)
	// flipTo waits for the callback's flip to ready (or not), passing the
	// flips before it: the callback tells them in order.
	flipTo := func(ready bool) {
		t.Helper()
		for {
			select {
			case r := <-flips:
				if r.Ready == ready {
					return
				}
			case <-time.After(waitLimit):
				t.Fatalf("no flip to ready=%v", ready)
			}
		}
	}
	e.start()
	if c := e.a.Readiness().Condition(); !c.Status {
		t.Fatalf("condition %+v before any pod, want ready", c)
	}
	pod := testPod("web")
	pod.Annotations = map[string]string{validator.RequiredPlugins: "[gate]"}
	if err := e.a.AwaitPlugins(context.Background(), pod); !errors.Is(err, adaptation.ErrPluginsNotReady) {
		t.Fatalf("AwaitPlugins: %v, want ErrPluginsNotReady", err)
	}
	c := e.a.Readiness().Condition()
	if c.Status || c.Reason != adaptation.ConditionPluginsNotActive || c.Message != `"gate" never connected (required by pod default/pod-web)` {
		t.Errorf("condition %+v, want not ready naming gate and the pod", c)
	}
	flipTo(false)
	e.external(gateIdx, gateName, testplugin.Config{})
	e.waitPlugins(gateID)
	// Plugins lists the plugin as it enters the dispatch list, a moment
	// before the gate hears of it: the flip says when it did.
	flipTo(true)
	if r := e.a.Readiness(); !r.Ready {
		t.Errorf("Readiness %+v once the plugin joined, want ready", r)
	}
}
