// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// recorder is a DeprecationRecorder that keeps every warning.
type recorder struct {
	mu       sync.Mutex
	warnings []string // "plugin: details"
}

func (r *recorder) PluginWarning(ctx context.Context, d adaptation.Deprecation, plugin, details string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := plugin + " " + d.String() + ": " + details
	if ev, ok := adaptation.DeprecatedEvent(ctx); !ok || !strings.Contains(details, ev.Name()) {
		w += " (the context names no event, or another one)"
	}
	r.warnings = append(r.warnings, w)
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.warnings)
}

func TestLegacyPluginFallsBackOncePerEvent(t *testing.T) {
	rec := &recorder{}
	e := newEnv(t, adaptation.WithDeprecationRecorder(rec))
	e.preinstall("10", "legacy", testplugin.Config{Legacy: true})
	e.preinstall("20", "modern", testplugin.Config{})
	e.start()
	e.waitPlugins("10-legacy", "20-modern")

	runLifecycle(t, e.a, "round1")
	if n := len(rec.list()); n != 9 {
		t.Fatalf("deprecation records after one lifecycle: %d, want 9:\n%s", n, strings.Join(rec.list(), "\n"))
	}
	runLifecycle(t, e.a, "round2")
	if n := len(rec.list()); n != 9 {
		t.Fatalf("deprecation records after two lifecycles: %d, want still 9", n)
	}

	for _, name := range []string{"legacy", "modern"} {
		if got := e.events(name); !equal(got, append(slices.Clone(fullLifecycleEvents), fullLifecycleEvents...)) {
			t.Errorf("%s got %v", name, got)
		}
	}
	legacyEvents := map[string]bool{}
	for _, ev := range testplugin.LegacyEvents {
		legacyEvents[ev.Name()] = true
	}
	for _, r := range testplugin.Of(e.records(), "legacy") {
		if wantVia := legacyEvents[r.Event]; (r.Via == testplugin.ViaStateChange) != wantVia {
			t.Errorf("legacy got %s via %q", r.Event, r.Via)
		}
	}
	for _, r := range testplugin.Of(e.records(), "modern") {
		if r.Via != "" {
			t.Errorf("modern got %s via %q", r.Event, r.Via)
		}
	}
	for _, w := range rec.list() {
		if !strings.HasPrefix(w, "10-legacy deprecated StateChange: does not implement a dedicated ") {
			t.Errorf("unexpected warning %q", w)
		}
	}
	deps := e.a.Deprecations()
	if len(deps) != 1 || deps[0].Plugin != "10-legacy" || len(deps[0].Events) != 9 || deps[0].Since.IsZero() {
		t.Errorf("Deprecations() = %+v, want 10-legacy with 9 events", deps)
	}
	warnings := e.logged(logrus.Fields{"plugin": "10-legacy", "deprecated": "deprecated StateChange"})
	if len(warnings) != 9 {
		t.Errorf("deprecation log lines: %d, want 9", len(warnings))
	}
	if got := e.a.Plugins(); !got[0].StateChange || got[1].StateChange {
		t.Errorf("Plugins() StateChange flags = %+v", got)
	}
}

func TestLegacyTeardownFailureDoesNotBlockModern(t *testing.T) {
	for _, order := range [][2]string{{"10", "20"}, {"20", "10"}} {
		t.Run("legacy-at-"+order[0], func(t *testing.T) {
			e := newEnv(t)
			e.preinstall(order[0], "legacy", testplugin.Config{Legacy: true,
				Behaviours: map[string]testplugin.Behaviour{"RemovePodSandbox": {Fail: "legacy teardown failure"}}})
			e.preinstall(order[1], "modern", testplugin.Config{})
			e.start()
			runLifecycle(t, e.a, "pt") // fails the test if RemovePodSandbox returned an error
			if testplugin.Count(e.records(), "modern", "RemovePodSandbox") != 1 {
				t.Fatal("modern plugin did not get RemovePodSandbox")
			}
			r := testplugin.Find(e.records(), "legacy", "RemovePodSandbox")
			if len(r) != 1 || r[0].Via != testplugin.ViaStateChange {
				t.Fatalf("legacy RemovePodSandbox records: %+v", r)
			}
		})
	}
}

func TestNeitherPathIsAnError(t *testing.T) {
	e := newEnv(t)
	e.preinstall("10", "modern", testplugin.Config{})
	e.preinstall("20", "neither", testplugin.Config{Legacy: true, NoStateChange: true, Events: "runpodsandbox,stoppodsandbox"})
	e.start()
	e.waitPlugins("10-modern", "20-neither")
	ctx := context.Background()
	pod := testPod("pn")
	err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod})
	if err == nil || !strings.Contains(err.Error(), "neither the RunPodSandbox RPC nor StateChange") {
		t.Fatalf("RunPodSandbox = %v, want a clear error", err)
	}
	if err := e.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatalf("teardown failed: %v", err)
	}
	if testplugin.Count(e.records(), "modern", "StopPodSandbox") != 1 {
		t.Fatal("modern plugin lost StopPodSandbox")
	}
	if len(e.logged(logrus.Fields{"plugin": "20-neither", "event": "StopPodSandbox"})) == 0 {
		t.Error("the teardown failure was not logged")
	}
	if len(e.a.Deprecations()) != 0 {
		t.Fatalf("a failed fallback was recorded as a deprecation: %+v", e.a.Deprecations())
	}
}

func TestUnimplementedWithoutFallbackIsAnError(t *testing.T) {
	e := newEnv(t)
	// CreateContainer had a dedicated RPC before StateChange was retired:
	// even a legacy plugin takes it directly, and it never falls back.
	e.preinstall("10", "legacy", testplugin.Config{Legacy: true, NoStateChange: true, Events: "createcontainer"})
	e.start()
	e.waitPlugins("10-legacy")
	pod := testPod("pu")
	_, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("c", pod)})
	if err != nil {
		t.Fatalf("CreateContainer has a dedicated RPC even in legacy plugins: %v", err)
	}
	if r := testplugin.Find(e.records(), "legacy", "CreateContainer"); len(r) != 1 || r[0].Via != "" {
		t.Fatalf("CreateContainer records %+v, want one dedicated call", r)
	}
}

// TestLegacyPluginFailingItsFirstEventIsDeprecated: a legacy plugin that
// answers Unimplemented to RunPodSandbox and then times out, fails or crashes
// on StateChange has still shown that it lacks the dedicated RPC. The
// recorder hears of it once; Deprecations() lists it while it stays
// connected; the event policy decides whether it does.
func TestLegacyPluginFailingItsFirstEventIsDeprecated(t *testing.T) {
	keep := &testplugin.FailurePolicy{KeepConnected: true}
	tests := []struct {
		name      string
		behaviour testplugin.Behaviour
		policy    *testplugin.FailurePolicy
		wantErr   bool // a plugin's own error fails a setup event
		kept      bool
	}{
		{"timeout drops it", testplugin.Behaviour{Hang: true}, nil, false, false},
		{"timeout with keep_connected", testplugin.Behaviour{Hang: true}, keep, false, true},
		{"error", testplugin.Behaviour{Fail: "legacy failure"}, nil, true, true},
		{"crash", testplugin.Behaviour{Exit: 3}, nil, false, false},
	}
	const warning = "10-legacy deprecated StateChange: does not implement a dedicated RunPodSandbox RPC call"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			e := newEnv(t, adaptation.WithRequestTimeout(testRequestTimeout), adaptation.WithDeprecationRecorder(rec))
			e.preinstall("10", "legacy", testplugin.Config{Legacy: true, FailurePolicy: tt.policy,
				Behaviours: map[string]testplugin.Behaviour{"RunPodSandbox": tt.behaviour}})
			e.preinstall("20", "modern", testplugin.Config{})
			e.start()
			e.waitPlugins("10-legacy", "20-modern")

			err := e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: testPod("pf")})

			if (err != nil) != tt.wantErr {
				t.Fatalf("RunPodSandbox = %v, want error: %v", err, tt.wantErr)
			}
			if r := testplugin.Find(e.records(), "legacy", "RunPodSandbox"); len(r) != 1 || r[0].Via != testplugin.ViaStateChange {
				t.Fatalf("legacy RunPodSandbox records %+v, want one through StateChange", r)
			}
			if got := rec.list(); !equal(got, []string{warning}) {
				t.Errorf("recorded %q, want %q", got, warning)
			}
			if n := len(e.logged(logrus.Fields{"plugin": "10-legacy", "event": "RunPodSandbox", "deprecated": "deprecated StateChange"})); n != 1 {
				t.Errorf("deprecation log lines: %d, want 1", n)
			}
			want := []string{"20-modern"}
			if tt.kept {
				want = []string{"10-legacy", "20-modern"}
			}
			e.waitPlugins(want...)
			deps := e.a.Deprecations()
			if tt.kept && (len(deps) != 1 || deps[0].Plugin != "10-legacy" ||
				len(deps[0].Events) != 1 || deps[0].Events[0] != api.Event_RUN_POD_SANDBOX) {
				t.Errorf("Deprecations() = %+v, want 10-legacy with RunPodSandbox", deps)
			}
			if !tt.kept && len(deps) != 0 {
				t.Errorf("Deprecations() = %+v, want none once the plugin is gone", deps)
			}
		})
	}
}
