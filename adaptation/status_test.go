// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// pluginStatus finds plugin id in st.
func pluginStatus(t *testing.T, st adaptation.Status, id string) adaptation.PluginStatus {
	t.Helper()
	for _, p := range st.Plugins {
		if p.Plugin == id {
			return p
		}
	}
	t.Fatalf("plugin %s not in the status (%d plugins)", id, len(st.Plugins))
	return adaptation.PluginStatus{}
}

func eventCalls(p adaptation.PluginStatus, ev api.Event) adaptation.EventCalls {
	for _, c := range p.Calls {
		if c.Event == ev.Name() {
			return c
		}
	}
	return adaptation.EventCalls{}
}

// Status counts every call of every plugin by event and outcome, the same
// calls Metrics is told of, and each event's histogram adds up to its
// count.
func TestStatusCountsEveryCall(t *testing.T) {
	e := newEnv(t)
	e.preinstall("10", "all", testplugin.Config{})
	e.preinstall("20", "failing", testplugin.Config{Events: "createcontainer,stopcontainer",
		Behaviours: map[string]testplugin.Behaviour{"StopContainer": {Fail: "cannot stop"}}})
	e.start()
	e.waitPlugins("10-all", "20-failing")
	const lifecycles = 3
	for i := range lifecycles {
		runLifecycle(t, e.a, fmt.Sprintf("st%d", i))
	}
	st := e.a.Status()
	if st.SchemaVersion != adaptation.StatusSchemaVersion || !st.Started || st.Runtime != "nritest-runtime" {
		t.Errorf("status header: %+v", st)
	}
	for _, id := range []string{"10-all", "20-failing"} {
		ps := pluginStatus(t, st, id)
		if ps.JoinedAt.IsZero() || ps.PID == 0 || ps.Kind != adaptation.KindPreinstalled {
			t.Errorf("%s: %+v", id, ps.PluginInfo)
		}
		for ev := api.Event_RUN_POD_SANDBOX; ev < api.Event_LAST; ev++ {
			c := eventCalls(ps, ev)
			for o, n := range c.Outcomes {
				if want := e.metrics.count(id, ev, o); int(n) != want {
					t.Errorf("%s %s %s: status counts %d, metrics %d", id, ev.Name(), o, n, want)
				}
			}
			var byOutcome, inBuckets uint64
			for _, n := range c.Outcomes {
				byOutcome += n
			}
			for _, b := range c.Latency.Buckets {
				inBuckets += b.Count
			}
			if byOutcome != c.Total || inBuckets != c.Total {
				t.Errorf("%s %s: total %d, by outcome %d, in buckets %d", id, ev.Name(), c.Total, byOutcome, inBuckets)
			}
			if c.Total > 0 && (c.Latency.Max <= 0 || c.Latency.Sum < c.Latency.Max) {
				t.Errorf("%s %s: latency sum %v, max %v", id, ev.Name(), c.Latency.Sum, c.Latency.Max)
			}
		}
	}
	// What the plugin itself saw, event by event.
	all := pluginStatus(t, st, "10-all")
	seen := map[string]uint64{}
	for _, ev := range e.events("all") {
		seen[ev]++
	}
	for ev, n := range seen {
		event, err := api.ParseEvent(ev)
		must(t, err)
		if got := eventCalls(all, event).Outcomes[adaptation.OutcomeOK]; got != n {
			t.Errorf("10-all %s: status counts %d ok, the plugin saw %d", ev, got, n)
		}
	}
	failing := pluginStatus(t, st, "20-failing")
	stops := eventCalls(failing, api.Event_STOP_CONTAINER)
	if stops.Outcomes[adaptation.OutcomeError] != 2*lifecycles || stops.Total != 2*lifecycles {
		t.Errorf("20-failing StopContainer: %+v, want %d errors", stops, 2*lifecycles)
	}
	if eventCalls(failing, api.Event_RUN_POD_SANDBOX).Total != 0 {
		t.Error("20-failing is counted for an event it does not take")
	}
	last := failing.LastError
	if last == nil || last.Event != "StopContainer" || last.Outcome != adaptation.OutcomeError || !strings.Contains(last.Error, "cannot stop") {
		t.Errorf("20-failing last error: %+v", last)
	}
	if all.LastError != nil {
		t.Errorf("10-all never failed, yet has last error %+v", all.LastError)
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"schema_version":1`, `"joined_at":`, `"calls":[`, `"le":"500µs"`, `"le":"+Inf"`, `"recent_changes":[`, `"settings":{`, `"request_timeout":"2s"`} {
		if !strings.Contains(string(b), field) {
			t.Errorf("status JSON lacks %s", field)
		}
	}
}

// A plugin that fails UpdateContainer has that failure as its last error,
// its text escaped.
func TestStatusLastErrorOfFailedUpdate(t *testing.T) {
	e := newEnv(t)
	e.preinstall("10", "upd", testplugin.Config{Events: "updatecontainer",
		Behaviours: map[string]testplugin.Behaviour{"UpdateContainer": {Fail: "no memory\n\x1b[31mfor you"}}})
	e.start()
	e.waitPlugins("10-upd")
	pod := testPod("le")
	ctr := testContainer("le-c1", pod)
	_, err := e.a.UpdateContainer(context.Background(), &api.UpdateContainerRequest{Pod: pod, Container: ctr,
		LinuxResources: &api.LinuxResources{Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 1 << 30}}}})
	if err == nil {
		t.Fatal("UpdateContainer succeeded although its plugin failed it")
	}
	last := pluginStatus(t, e.a.Status(), "10-upd").LastError
	if last == nil || last.Event != "UpdateContainer" || last.Outcome != adaptation.OutcomeError {
		t.Fatalf("last error %+v, want UpdateContainer's", last)
	}
	if !strings.Contains(last.Error, `no memory\n\x1b[31mfor you`) || strings.ContainsAny(last.Error, "\n\x1b") {
		t.Errorf("last error text %q: want the plugin's error with its control characters escaped", last.Error)
	}
}

// A plugin killed in the middle of an event is gone from the plugins and
// in the recent changes with its exit status; a replacing instance starts
// counting at zero.
func TestStatusRecentChanges(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithPluginChanges(changes.add))
	e.preinstall("20", "crashes", testplugin.Config{Behaviours: map[string]testplugin.Behaviour{"CreateContainer": {Exit: 3}}})
	e.start()
	e.external("50", "ext", testplugin.Config{})
	e.waitPlugins("20-crashes", "50-ext")
	pod := testPod("rc")
	must(t, e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: pod}))
	_, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("rc-c1", pod)})
	must(t, err)
	e.waitPlugins("50-ext")
	if n := eventCalls(pluginStatus(t, e.a.Status(), "50-ext"), api.Event_CREATE_CONTAINER).Total; n != 1 {
		t.Fatalf("50-ext: %d CreateContainer calls counted, want 1", n)
	}
	e.external("50", "ext", testplugin.Config{}) // replaces the first instance
	changes.waitFor(t, "50-ext", 3)              // joined, joined, left
	st := e.a.Status()
	if !hasChange(st, "50-ext", adaptation.PluginLeft, "replaced") {
		t.Errorf("recent changes lack the replaced instance's leaving: %+v", st.RecentChanges)
	}
	if !hasChange(st, "20-crashes", adaptation.PluginLeft, "exit status 3") {
		t.Errorf("recent changes lack the crash with its exit status: %+v", st.RecentChanges)
	}
	for _, c := range st.RecentChanges {
		if c.Plugin == "20-crashes" && c.Change == adaptation.PluginLeft && c.Phase != "CreateContainer" {
			t.Errorf("crash reported in phase %q, want CreateContainer", c.Phase)
		}
		// Status no longer lists the dropped instance: its last error
		// stays with its leaving.
		if c.Plugin == "20-crashes" && c.Change == adaptation.PluginLeft &&
			(c.LastError == nil || c.LastError.Event != "CreateContainer" || c.LastError.Outcome != adaptation.OutcomeLost) {
			t.Errorf("the crash's leaving keeps last error %+v, want its lost CreateContainer", c.LastError)
		}
	}
	if calls := pluginStatus(t, st, "50-ext").Calls; len(calls) != 0 {
		t.Errorf("the replacing instance starts with counts %+v, want none", calls)
	}

	// A flood of connections that never register is kept apart: it does
	// not push the crash out.
	const refused = adaptation.MaxRecentChanges + 2
	for i := range refused {
		// One at a time: connections of one process registering at once
		// are bounded, and those beyond the bound are refused unreported.
		dialSocket(t, e.socket).Close()
		changes.waitFor(t, "unregistered", i+1)
	}
	st = e.a.Status()
	if !hasChange(st, "20-crashes", adaptation.PluginLeft, "exit status 3") {
		t.Errorf("refused connections pushed the crash out of the recent changes: %+v", st.RecentChanges)
	}
	if r := st.RefusedConnections; r.Total != refused || len(r.Last) != adaptation.MaxRecentRefused || r.Last[0].Plugin != "unregistered" {
		t.Errorf("refused connections %d, last %d (%+v); want %d and the last %d", r.Total, len(r.Last), r.Last, refused, adaptation.MaxRecentRefused)
	}
}

func hasChange(st adaptation.Status, plugin string, kind adaptation.ChangeKind, reason string) bool {
	for _, c := range st.RecentChanges {
		if c.Plugin == plugin && c.Change == kind && strings.Contains(c.Reason, reason) {
			return true
		}
	}
	return false
}

// A plugin still in its handshake is listed as joining, with its pid and
// phase, and no longer once it gave up.
func TestStatusJoining(t *testing.T) {
	e := newEnv(t)
	e.start()
	cmd := e.external("10", "silent", testplugin.Config{Behaviours: map[string]testplugin.Behaviour{testplugin.KeyRegister: {Hang: true}}})
	deadline := time.After(waitLimit)
	changed := adaptation.JoiningChanged(e.a) // taken before Status, so no change is missed
	joining := e.a.Status().Joining
	for len(joining) == 0 {
		select {
		case <-deadline:
			t.Fatal("the connecting plugin is not listed as joining")
		case <-changed:
		}
		changed = adaptation.JoiningChanged(e.a)
		joining = e.a.Status().Joining
	}
	j := joining[0]
	if j.Plugin != "unregistered" || j.Phase != "register" || j.PID != cmd.Process.Pid || j.Since.IsZero() {
		t.Errorf("joining %+v, want the unregistered connection of pid %d", j, cmd.Process.Pid)
	}
}

// Status reads back from its JSON as it was, deprecations included.
func TestStatusJSONRoundTrip(t *testing.T) {
	e := newEnv(t)
	e.preinstall("30", "legacy", testplugin.Config{Legacy: true})
	e.start()
	e.waitPlugins("30-legacy")
	runLifecycle(t, e.a, "rt")
	st := e.a.Status()
	if len(st.Deprecations) == 0 {
		t.Fatal("the legacy plugin has no deprecation")
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back adaptation.Status
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	again, err := json.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(b) {
		t.Errorf("status read back differs:\n%s\nwant\n%s", again, b)
	}
}

// Status and ContainerRecord may be called at any time: while events flow,
// records are evicted and plugins come and go (run with -race).
func TestStatusWhileEventsFlow(t *testing.T) {
	e := newEnv(t, adaptation.WithContainerRecords(2))
	e.preinstall("10", "labels", testplugin.Config{Annotations: map[string]string{"a": "b"}})
	e.start()
	e.external("50", "ext", testplugin.Config{})
	e.waitPlugins("10-labels", "50-ext")
	done := make(chan struct{})
	readers := make(chan error, 2)
	for range 2 {
		go func() {
			reads := 0
			for {
				select {
				case <-done:
					if reads == 0 {
						readers <- errors.New("no status read while the events flowed")
						return
					}
					readers <- nil
					return
				default:
				}
				st := e.a.Status()
				if _, err := json.Marshal(st); err != nil {
					readers <- err
					return
				}
				for _, p := range st.Plugins {
					for _, c := range p.Calls {
						var n uint64
						for _, b := range c.Latency.Buckets {
							n += b.Count
						}
						if n != c.Total {
							readers <- fmt.Errorf("%s %s: %d calls, %d in the histogram", p.Plugin, c.Event, c.Total, n)
							return
						}
					}
				}
				e.a.ContainerRecord("flow0-c1")
				reads++
			}
		}()
	}
	for i := range 4 {
		runLifecycle(t, e.a, fmt.Sprintf("flow%d", i))
		if i == 1 {
			e.external("50", "ext", testplugin.Config{}) // replaces the first instance
		}
	}
	close(done)
	for range 2 {
		if err := <-readers; err != nil {
			t.Error(err)
		}
	}
}

// Status shows the operator's settings of the features beside it: per-plugin
// settings (and, per plugin, where its values came from), the event budget
// and the readiness gate with what is missing.
func TestStatusShowsSettingsBudgetsAndReadiness(t *testing.T) {
	slow := adaptation.PluginSettings{
		RequestTimeout: adaptation.Duration(3 * time.Second),
		FailurePolicy:  &adaptation.FailurePolicy{FailRequest: true},
	}
	e := newEnv(t,
		adaptation.WithPluginSettings("20-slow", slow),
		adaptation.WithEventBudget(10*time.Second), // 20-slow also validates: 3 s + 3 s
		adaptation.WithBudgetCheck(adaptation.BudgetRefuse),
		adaptation.WithDefaultValidator(&validator.DefaultValidatorConfig{Enable: true, RequiredPlugins: []string{"gate"}}),
		adaptation.WithPluginReadiness(adaptation.ReadinessConfig{Wait: adaptation.Duration(time.Second), ExemptNamespaces: []string{"kube-system"}}),
	)
	e.external("20", "slow", testplugin.Config{})
	e.start()
	e.waitPlugins("20-slow")

	st := e.a.Status()
	s := st.Settings
	if got := s.PluginSettings["20-slow"]; got.RequestTimeout != slow.RequestTimeout || got.FailurePolicy == nil || !got.FailurePolicy.FailRequest {
		t.Errorf("settings.plugin_settings[20-slow] = %+v, want %+v", got, slow)
	}
	if s.EventBudget != adaptation.Duration(10*time.Second) || s.BudgetCheck != adaptation.BudgetRefuse || s.DeadlineReserve != adaptation.Duration(adaptation.DefaultDeadlineReserve) {
		t.Errorf("settings: event_budget %v, budget_check %q, deadline_reserve %v", s.EventBudget, s.BudgetCheck, s.DeadlineReserve)
	}
	if r := s.PluginReadiness; r == nil || r.Wait != adaptation.Duration(time.Second) || !slices.Equal(r.ExemptNamespaces, []string{"kube-system"}) {
		t.Errorf("settings.plugin_readiness = %+v", r)
	}
	p := pluginStatus(t, st, "20-slow")
	if p.RequestTimeout != slow.RequestTimeout || p.RequestTimeoutFrom != adaptation.FromOperator ||
		!p.FailurePolicy.FailRequest || p.FailurePolicyFrom != adaptation.FromOperator {
		t.Errorf("plugin 20-slow: timeout %v from %q, policy %+v from %q; want the operator's", p.RequestTimeout, p.RequestTimeoutFrom, p.FailurePolicy, p.FailurePolicyFrom)
	}
	if st.Readiness.Ready || len(st.Readiness.Missing) != 1 || st.Readiness.Missing[0].Name != "gate" {
		t.Errorf("readiness %+v, want not ready, gate missing", st.Readiness)
	}

	// The status is a copy: changing it changes nothing of the adaptation's.
	s.PluginSettings["20-slow"].FailurePolicy.FailRequest = false
	s.PluginReadiness.ExemptNamespaces[0] = "changed"
	again := e.a.Status().Settings
	if !again.PluginSettings["20-slow"].FailurePolicy.FailRequest || again.PluginReadiness.ExemptNamespaces[0] != "kube-system" {
		t.Error("changing a Status changed the adaptation's settings")
	}
}
