// SPDX-License-Identifier: Apache-2.0

package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestConformanceObserverAndFilteredPlugin: an observer (--observe) and a
// plugin with a scope of pods (--filter) both pass every case; the
// filtered one hears of the pods of its scope alone, in its events and its
// snapshots.
func TestConformanceObserverAndFilteredPlugin(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(),
		testplugin.Config{Index: "10", Name: "watch", Annotations: map[string]string{"ignored": "yes"}},
		testplugin.Config{Index: "20", Name: "gpu"})
	r := runCmd(t, "--conformance", "--json", "--plugin-path", pluginDir, "--observe", "watch", "--filter", "gpu=pod_labels=app!=demo")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseConformance(t, r.stdout)
	if !rep.OK || rep.Passed != 2 || !slices.Equal(rep.Observers, []string{"watch"}) || rep.Filters["gpu"] == nil {
		t.Errorf("ok %v, passed %d, observers %v, filters %v", rep.OK, rep.Passed, rep.Observers, rep.Filters)
	}
	watch, gpu := resultOf(t, rep, "10-watch"), resultOf(t, rep, "20-gpu")
	for _, p := range []PluginConformance{watch, gpu} {
		for _, c := range p.Cases {
			if c.Result != verdictPass {
				t.Errorf("%s %s: %s %v", p.Plugin, c.Case, c.Result, c.Notes)
			}
		}
	}
	if n := caseOf(watch, caseRestart).Notes; !slices.Contains(n, "restarted; new snapshot: pod-0, pod-1, ctr-0a, ctr-1a, ctr-1b") {
		t.Errorf("the observer's restart notes %q", n)
	}
	// pod-1 (app=demo) is outside 20-gpu's scope: neither its snapshots nor
	// its events name it.
	if n := caseOf(gpu, caseRestart).Notes; !slices.Contains(n, "restarted; new snapshot: pod-0, ctr-0a") {
		t.Errorf("the filtered plugin's restart notes %q", n)
	}
	if got := receivedOf(gpu, "CreateContainer"); got.Dedicated != 1 {
		t.Errorf("20-gpu got %d CreateContainer, want 1: ctr-2a's, the one creation in its scope", got.Dedicated)
	}
	if watch.Replies.Calls == 0 || watch.Replies.Failed != 0 {
		t.Errorf("the observer's replies %+v: want its calls, none failed", watch.Replies)
	}

	text := runCmd(t, "--conformance", "--plugin-path", pluginDir, "--observe", "watch", "--filter", "gpu=pod_labels=app!=demo")
	for _, want := range []string{
		`  observer:  watch (delivery = "observe": never waited for, its replies not applied)`,
		"  filter:    gpu takes only the pods of pod_labels=app!=demo",
		"RESULT: PASS: 2 plugin(s) passed, 0 failed",
	} {
		if !strings.Contains(text.stdout, want) {
			t.Errorf("text report lacks %q:\n%s", want, text.stdout)
		}
	}
}

// TestObserverInTheLifecycleReport: an observer's calls are reported under
// the step that queued them, and its adjustment is not in the changes.
func TestObserverInTheLifecycleReport(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(),
		testplugin.Config{Index: "10", Name: "watch", Annotations: map[string]string{"ignored": "yes"}, Delay: "5ms"})
	r := runCmd(t, "--json", "--plugin-path", pluginDir, "--observe", "10-watch")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseJSON(t, r.stdout)
	for _, ev := range rep.Events {
		if len(ev.Calls) == 0 || ev.Calls[0].Plugin != "10-watch" || ev.Calls[0].Event != "" {
			t.Errorf("#%d %s: calls %+v, want the observer's call of the event", ev.Seq, ev.Event, ev.Calls)
		}
		if len(ev.Changes) != 0 {
			t.Errorf("#%d %s: changes %+v, want none: the observer's adjustment is not applied", ev.Seq, ev.Event, ev.Changes)
		}
	}
}

func TestRolloutFlagErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--filter", "gpu"}, `"gpu" is not NAME=SPEC`},
		{[]string{"--filter", "gpu="}, "gpu: empty filter"},
		{[]string{"--filter", "gpu=handlers=nvidia"}, `gpu: unknown filter key "handlers"`},
		{[]string{"--filter", "gpu=runtime_handlers"}, `gpu: "runtime_handlers" is not KEY=VALUE`},
		{[]string{"--filter", "gpu=runtime_handlers=a", "--filter", "gpu=namespaces=b"}, "gpu: given twice"},
		{[]string{"--observe", "a,,b"}, "empty plugin name"},
	} {
		r := runCmd(t, c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	// A value New refuses ends the run before it starts, naming the key.
	r := runCmd(t, "--no-samples", "--filter", "gpu=pod_labels==x")
	if r.code != exitFailed || !strings.Contains(r.stdout+r.stderr, `plugin_settings."gpu".filter.pod_labels[0]`) {
		t.Errorf("exit %d, stdout %q stderr %q; want New's error naming the key", r.code, r.stdout, r.stderr)
	}
}
