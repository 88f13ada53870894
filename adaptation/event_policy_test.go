// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// testRequestTimeout is short enough to keep timeout tests quick and long
// enough for a healthy plugin on a loaded CI machine under -race.
const testRequestTimeout = time.Second

// eventDriver brings a pod to the point of one event and issues it.
type eventDriver struct {
	event string
	// run returns the event's own error after the events leading to it.
	run func(t *testing.T, a *adaptation.Adaptation) error
}

var (
	setupDriver = eventDriver{"CreateContainer", func(t *testing.T, a *adaptation.Adaptation) error {
		pod, ctr := podAndContainer(t, a, "ps", false)
		_, err := a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: ctr})
		return err
	}}
	teardownDriver = eventDriver{"StopContainer", func(t *testing.T, a *adaptation.Adaptation) error {
		pod, ctr := podAndContainer(t, a, "pt", true)
		_, err := a.StopContainer(context.Background(), &api.StopContainerRequest{Pod: pod, Container: ctr})
		return err
	}}
	validationDriver   = eventDriver{"ValidateContainerAdjustment", setupDriver.run}
	notificationDriver = eventDriver{"PostStartContainer", func(t *testing.T, a *adaptation.Adaptation) error {
		pod, ctr := podAndContainer(t, a, "pn", true)
		return a.PostStartContainer(context.Background(), &api.PostStartContainerRequest{Pod: pod, Container: ctr})
	}}
)

// podAndContainer runs a pod and, if created, creates a container in it.
func podAndContainer(t *testing.T, a *adaptation.Adaptation, id string, created bool) (*api.PodSandbox, *api.Container) {
	t.Helper()
	ctx := context.Background()
	pod := testPod(id)
	ctr := testContainer(id+"-c", pod)
	if err := a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatal(err)
	}
	if created {
		if _, err := a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr}); err != nil {
			t.Fatal(err)
		}
	}
	return pod, ctr
}

// TestEventPolicy checks every row of the event policy table (event_policy.go)
// with real plugin processes: a misbehaving plugin 10-bad, then 20-good.
func TestEventPolicy(t *testing.T) {
	behaviours := map[string]testplugin.Behaviour{
		"error":   {Fail: "injected failure"},
		"timeout": {Hang: true},
		"crash":   {Exit: 3},
	}
	tests := []struct {
		class      string
		driver     eventDriver
		behaviour  string
		wantErr    bool
		goodCalled bool
		active     []string
	}{
		{"setup", setupDriver, "error", true, false, []string{"10-bad", "20-good"}},
		{"setup", setupDriver, "timeout", false, true, []string{"20-good"}},
		{"setup", setupDriver, "crash", false, true, []string{"20-good"}},
		{"teardown", teardownDriver, "error", false, true, []string{"10-bad", "20-good"}},
		{"teardown", teardownDriver, "timeout", false, true, []string{"20-good"}},
		{"teardown", teardownDriver, "crash", false, true, []string{"20-good"}},
		{"notification", notificationDriver, "error", false, true, []string{"10-bad", "20-good"}},
		{"notification", notificationDriver, "timeout", false, true, []string{"20-good"}},
		{"notification", notificationDriver, "crash", false, true, []string{"20-good"}},
		{"validation", validationDriver, "error", true, true, []string{"10-bad", "20-good"}},
		{"validation", validationDriver, "timeout", true, true, []string{"20-good"}},
		{"validation", validationDriver, "crash", true, true, []string{"20-good"}},
	}
	for _, tt := range tests {
		t.Run(tt.class+"/"+tt.behaviour, func(t *testing.T) {
			e := newEnv(t, adaptation.WithRequestTimeout(testRequestTimeout))
			e.preinstall("10", "bad", testplugin.Config{
				Behaviours: map[string]testplugin.Behaviour{tt.driver.event: behaviours[tt.behaviour]},
			})
			e.preinstall("20", "good", testplugin.Config{})
			e.start()
			e.waitPlugins("10-bad", "20-good")

			err := tt.driver.run(t, e.a)

			if (err != nil) != tt.wantErr {
				t.Fatalf("%s returned %v, want error: %v", tt.driver.event, err, tt.wantErr)
			}
			if err != nil {
				var perr *adaptation.PluginError
				if !errors.As(err, &perr) || perr.Plugin != "10-bad" || perr.Op != tt.driver.event {
					t.Errorf("error %q does not name plugin 10-bad and the event", err)
				}
				if cause := map[string]error{"timeout": adaptation.ErrPluginTimeout}[tt.behaviour]; cause != nil && !errors.Is(err, cause) {
					t.Errorf("error %q does not wrap %v", err, cause)
				}
				if tt.behaviour == "error" && !strings.Contains(err.Error(), "injected failure") {
					t.Errorf("error %q does not carry the plugin's cause", err)
				}
			}
			if got := testplugin.Count(e.records(), "good", tt.driver.event) == 1; got != tt.goodCalled {
				t.Errorf("20-good got %s: %v, want %v", tt.driver.event, got, tt.goodCalled)
			}
			e.waitPlugins(tt.active...)
			entries := e.logged(logrus.Fields{"plugin": "10-bad", "event": tt.driver.event})
			if len(entries) == 0 || entries[0].Data["error"] == nil {
				e.dumpLog()
				t.Errorf("no log line with plugin, event and error for the failure")
			}
		})
	}
}

// TestFailurePolicy checks a plugin's own failure policy and the runtime's
// default.
func TestFailurePolicy(t *testing.T) {
	hang := func(event string) map[string]testplugin.Behaviour {
		return map[string]testplugin.Behaviour{event: {Hang: true}}
	}
	tests := []struct {
		name     string
		policy   *testplugin.FailurePolicy
		fallback adaptation.FailurePolicy
		driver   eventDriver
		wantErr  bool
		active   []string
	}{
		{"fail_request fails setup", &testplugin.FailurePolicy{FailRequest: true}, adaptation.FailurePolicy{}, setupDriver, true, []string{"20-good"}},
		{"fail_request never fails teardown", &testplugin.FailurePolicy{FailRequest: true}, adaptation.FailurePolicy{}, teardownDriver, false, []string{"20-good"}},
		{"keep_connected keeps a timed-out plugin", &testplugin.FailurePolicy{KeepConnected: true}, adaptation.FailurePolicy{}, setupDriver, false, []string{"10-bad", "20-good"}},
		{"runtime default applies to undeclared", nil, adaptation.FailurePolicy{FailRequest: true, KeepConnected: true}, setupDriver, true, []string{"10-bad", "20-good"}},
		{"declared policy overrides the default", &testplugin.FailurePolicy{}, adaptation.FailurePolicy{FailRequest: true}, setupDriver, false, []string{"20-good"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, adaptation.WithRequestTimeout(testRequestTimeout), adaptation.WithDefaultFailurePolicy(tt.fallback))
			e.preinstall("10", "bad", testplugin.Config{FailurePolicy: tt.policy, Behaviours: hang(tt.driver.event)})
			e.preinstall("20", "good", testplugin.Config{})
			e.start()
			e.waitPlugins("10-bad", "20-good")

			err := tt.driver.run(t, e.a)

			if (err != nil) != tt.wantErr {
				t.Fatalf("%s returned %v, want error: %v", tt.driver.event, err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, adaptation.ErrPluginTimeout) {
				t.Errorf("error %v does not wrap ErrPluginTimeout", err)
			}
			e.waitPlugins(tt.active...)
		})
	}
}

// TestCallerCancelNotBlamed: a caller's deadline that ends a setup event
// fails it with the caller's deadline, but the plugin it cut is not dropped
// or blamed: a deadline shorter than twice the reserve is shared, so the
// plugin is called, and its cut call is counted as canceled, not as its
// timeout or error.
func TestCallerCancelNotBlamed(t *testing.T) {
	e := newEnv(t, adaptation.WithRequestTimeout(5*time.Second))
	e.preinstall("10", "slow", testplugin.Config{
		FailurePolicy: &testplugin.FailurePolicy{FailRequest: true},
		Behaviours:    map[string]testplugin.Behaviour{"RunPodSandbox": {Delay: "300ms"}},
	})
	e.start()
	e.waitPlugins("10-slow")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: testPod("pc")})
	if !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "10-slow") {
		t.Fatalf("RunPodSandbox = %v, want the caller's deadline, naming no plugin", err)
	}
	if got := pluginIDs(e.a); !equal(got, []string{"10-slow"}) {
		t.Fatalf("plugin blamed for the caller's deadline: active %v", got)
	}
	if c := eventCallsOf(t, e.a, "10-slow", "RunPodSandbox"); c.Total != 1 || c.NotCalled != 0 {
		t.Errorf("10-slow's RunPodSandbox calls %+v, want 1 made (cut), none left uncalled", c)
	}
	for _, o := range []adaptation.Outcome{adaptation.OutcomeTimeout, adaptation.OutcomeError, adaptation.OutcomeLost} {
		if n := e.metrics.count("10-slow", api.Event_RUN_POD_SANDBOX, o); n != 0 {
			t.Errorf("%s outcomes in the metrics = %d, want none: the caller's deadline cut the call", o, n)
		}
	}
	for _, p := range e.a.Status().Plugins {
		if p.LastError != nil {
			t.Errorf("%s's last error %+v: the caller's deadline is not its failure", p.Plugin, p.LastError)
		}
	}
}
