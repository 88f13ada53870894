// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/internal/interoptest"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// parseConformance reads a --conformance JSON report, after checking it
// against conformance.schema.json.
func parseConformance(t *testing.T, out string) *ConformanceReport {
	t.Helper()
	checkAgainst(t, out, conformanceSchemaFile, conformanceSchema)
	var rep ConformanceReport
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("JSON report: %v\n%s", err, out)
	}
	if rep.SchemaVersion != conformanceSchemaVersion {
		t.Errorf("schema_version %d, want %d", rep.SchemaVersion, conformanceSchemaVersion)
	}
	return &rep
}

// resultOf is the named plugin's result; it fails the test if absent.
func resultOf(t *testing.T, rep *ConformanceReport, id string) PluginConformance {
	t.Helper()
	for _, p := range rep.Results {
		if p.Plugin == id {
			return p
		}
	}
	t.Fatalf("no result for %s in %+v", id, rep.Results)
	return PluginConformance{}
}

// caseOf is one case's result for a plugin.
func caseOf(p PluginConformance, name string) CaseResult {
	for _, c := range p.Cases {
		if c.Case == name {
			return c
		}
	}
	return CaseResult{}
}

// receivedOf is how one event reached a plugin.
func receivedOf(p PluginConformance, ev string) Received {
	for _, r := range p.Received {
		if r.Event == ev {
			return r
		}
	}
	return Received{Event: ev}
}

// installStubs puts the reference-stub plugins, built from
// testdata/interop, into a plugin directory as 10-modern (v0.12.5) and
// 20-legacy (v0.11.0).
func installStubs(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "plugins")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, module := range map[string]string{"10-modern": "modern", "20-legacy": "legacy"} {
		if err := os.Symlink(interoptest.Binary(t, module), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestConformanceReferenceStubs: a v0.12.5 and a v0.11.0 plugin built on the
// reference stub both conform; the old one's StateChange deliveries are shown
// as such, and both are restarted and re-synchronized.
func TestConformanceReferenceStubs(t *testing.T) {
	t.Parallel()
	dir := installStubs(t)
	r := runCmd(t, "--conformance", "--json", "--plugin-path", dir)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseConformance(t, r.stdout)
	if !rep.OK || rep.Passed != 2 || rep.Failed != 0 {
		t.Errorf("ok %v, passed %d, failed %d", rep.OK, rep.Passed, rep.Failed)
	}
	modern, legacy := resultOf(t, rep, "10-modern"), resultOf(t, rep, "20-legacy")
	for _, p := range []PluginConformance{modern, legacy} {
		if p.Result != verdictPass || p.Instances != 2 || p.Replies.Failed != 0 || p.Replies.Adjustments == 0 {
			t.Errorf("%s: result %s, instances %d, replies %+v", p.Plugin, p.Result, p.Instances, p.Replies)
		}
		for _, c := range p.Cases {
			if c.Result != verdictPass {
				t.Errorf("%s %s: %s %v", p.Plugin, c.Case, c.Result, c.Notes)
			}
		}
		want := "restarted; new snapshot: pod-0, pod-1, ctr-0a, ctr-1a, ctr-1b"
		if n := caseOf(p, caseRestart).Notes; !slices.Contains(n, want) {
			t.Errorf("%s restart notes %q, want %q", p.Plugin, n, want)
		}
		if n := caseOf(p, caseJoined).Notes; !slices.Contains(n, "snapshot: pod-0, ctr-0a") {
			t.Errorf("%s joined notes %q", p.Plugin, n)
		}
	}
	for _, ev := range []string{"RunPodSandbox", "StartContainer", "RemoveContainer", "PostUpdatePodSandbox"} {
		if got := receivedOf(legacy, ev); got.Dedicated != 0 || got.StateChange == 0 {
			t.Errorf("20-legacy %s: %+v, want StateChange only", ev, got)
		}
		if got := receivedOf(modern, ev); got.Dedicated == 0 || got.StateChange != 0 {
			t.Errorf("10-modern %s: %+v, want dedicated only", ev, got)
		}
	}
	// One probe per instance: the switch to StateChange is sticky.
	if got := receivedOf(legacy, "RunPodSandbox"); got.Unimplemented != 2 {
		t.Errorf("20-legacy RunPodSandbox: %+v, want 2 Unimplemented (one per instance)", got)
	}
	if got := receivedOf(legacy, "CreateContainer"); got.Dedicated == 0 || got.StateChange != 0 {
		t.Errorf("20-legacy CreateContainer %+v: v0.11.0 has the dedicated RPC", got)
	}
	if len(rep.Deprecations) != 1 || rep.Deprecations[0].Plugin != "20-legacy" || len(rep.Deprecations[0].Events) != 9 {
		t.Errorf("deprecations %+v, want 20-legacy's 9 events", rep.Deprecations)
	}

	r = runCmd(t, "--conformance", "--plugin-path", dir)
	for _, want := range []string{
		"PLUGIN 20-legacy: pre-installed, v1alpha1, connected twice; takes all",
		"(deprecated), after 2 Unimplemented", "deprecation recorded: deprecated StateChange, 9 events",
		"#20  Restart", "restarted 10-modern, 20-legacy", "RESULT 10-modern: pass", "RESULT 20-legacy: pass",
		"RESULT: PASS: 2 plugin(s) passed, 0 failed",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("text report lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != exitOK || afterProgress(r.stderr) != "" || !strings.Contains(r.stderr, "nritest: 20-legacy joined") {
		t.Errorf("text: exit %d, stderr %q; want the progress lines alone", r.code, r.stderr)
	}
}

// TestConformanceFailures: plugins that break the contract or reply
// invalidly fail, with the reason named in the case where it happened; a
// conforming plugin beside them still passes.
func TestConformanceFailures(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		plugin testplugin.Config
		kase   string
		reason []string
	}{{
		name:   "hang",
		plugin: testplugin.Config{Index: "10", Name: "hangs", Behaviours: map[string]testplugin.Behaviour{"StopContainer": {Hang: true}}},
		kase:   caseOtherFails, // its first StopContainer: the undo of the failed creation
		reason: []string{"StopContainer of ctr-1x (step 17): timeout:", "dropped (timeout during StopContainer)"},
	}, {
		name:   "fail",
		plugin: testplugin.Config{Index: "10", Name: "fails", Behaviours: map[string]testplugin.Behaviour{"UpdateContainer": {Fail: "no updates here"}}},
		kase:   caseUpdates,
		reason: []string{"UpdateContainer of ctr-1a (step 10): error:", "no updates here"},
	}, {
		name:   "badadjust",
		plugin: testplugin.Config{Index: "10", Name: "badadjust", Env: map[string]string{"BAD=KEY": "x"}},
		kase:   caseCreated,
		reason: []string{"CreateContainer of ctr-1a (step 2): error:", "invalid adjustment", "contains '='"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			good := testplugin.Config{Index: "20", Name: "good"}
			pluginDir := installTestPlugins(t, dir, c.plugin, good)
			r := runCmd(t, "--conformance", "--json", "--plugin-path", pluginDir, "--request-timeout", "2s")
			if r.code != exitFailed {
				t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			rep := parseConformance(t, r.stdout)
			bad := resultOf(t, rep, c.plugin.Index+"-"+c.plugin.Name)
			notes := strings.Join(caseOf(bad, c.kase).Notes, "\n") + "\n" + strings.Join(bad.Problems, "\n")
			if bad.Result != verdictFail || caseOf(bad, c.kase).Result != verdictFail {
				t.Errorf("%s: result %s, %s %s", bad.Plugin, bad.Result, c.kase, caseOf(bad, c.kase).Result)
			}
			for _, want := range c.reason {
				if !strings.Contains(notes, want) {
					t.Errorf("%s: the reasons lack %q:\n%s", bad.Plugin, want, notes)
				}
			}
			if bad.Replies.Failed == 0 || bad.Replies.Failures[0].Error == "" {
				t.Errorf("%s replies %+v, want the failed call with its error", bad.Plugin, bad.Replies)
			}
			if g := resultOf(t, rep, "20-good"); c.name == "hang" && g.Result != verdictPass {
				t.Errorf("20-good beside a hanging plugin: %s %+v", g.Result, g.Cases)
			}
			if rep.OK || rep.Failed == 0 {
				t.Errorf("ok %v, failed %d", rep.OK, rep.Failed)
			}
		})
	}
}

// TestConformanceExternalNotRestarted: an external plugin, which nritest did
// not start, passes with its restart case shown skipped, never passed.
func TestConformanceExternalNotRestarted(t *testing.T) {
	t.Parallel()
	dir := shortTempDir(t)
	sock := filepath.Join(dir, "nri.sock")
	stderr := &lockedWriter{w: &bytes.Buffer{}}
	waiting := stderr.watch("nritest: waiting")
	finished := make(chan result, 1)
	go func() {
		finished <- runWith(stderr, "--conformance", "--no-samples", "--socket", sock, "--wait", "1")
	}()
	select {
	case <-waiting:
	case r := <-finished:
		t.Fatalf("run ended before waiting: exit %d\n%s", r.code, r.stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd, err := testplugin.StartExternal(ctx, testplugin.Config{Index: "50", Name: "ext", SocketPath: sock}, filepath.Join(dir, "ext.json"))
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var r result
	select {
	case r = <-finished:
	case <-time.After(testLimit):
		t.Fatal("run did not finish")
	}
	select {
	case <-exited: // the runtime's Stop ends it
	case <-time.After(testLimit):
		cancel()
		<-exited
		t.Error("the external plugin outlived the run")
	}
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"#20  Restart", "50-ext skipped: external plugin, which nritest did not start and cannot restart",
		"  restart              skipped  external plugin, which nritest did not start",
		"RESULT 50-ext: pass", "RESULT: PASS: 1 plugin(s) passed, 0 failed; cases skipped: 50-ext restart",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestConformanceExitStatus: usage errors exit 2, a run with nothing to
// check exits 1 and says so.
func TestConformanceExitStatus(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--conformance", "--linger", "1s"},
		{"--conformance", "--no-owners"},
		{"--conformance", "--pod-label", "a=b"},
		{"--conformance", "--wait", "1"},
	} {
		r := runCmd(t, args...)
		if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, "nritest -h") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2", args, r.code, r.stdout, r.stderr)
		}
	}
	r := runCmd(t, "--conformance", "--json", "--plugin-path", "")
	rep := parseConformance(t, r.stdout)
	if r.code != exitFailed || rep.OK || len(rep.Results) != 0 {
		t.Errorf("no plugins: exit %d, ok %v, results %+v", r.code, rep.OK, rep.Results)
	}
	r = runCmd(t, "--conformance", "--plugin-path", "")
	if !strings.Contains(r.stdout, "RESULT: FAILED: 0 plugin(s) passed, 0 failed; no plugin to check") {
		t.Errorf("no plugins: text report\n%s", r.stdout)
	}
	r = runCmd(t, "-h")
	for _, want := range []string{"-conformance", "with --conformance, 1\nif a plugin failed a case", "case is reported skipped"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("-h lacks %q", want)
		}
	}
}

// TestConformancePartialSubscriptions: a plugin held only to the events it
// takes passes: one without creation events may first hear of an object by
// its stop, one without stops gets the removal alone.
func TestConformancePartialSubscriptions(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(),
		testplugin.Config{Index: "10", Name: "nostops", Events: "runpodsandbox,createcontainer,removecontainer,removepodsandbox"},
		testplugin.Config{Index: "20", Name: "stopsonly", Events: "stopcontainer,stoppodsandbox"},
		testplugin.Config{Index: "30", Name: "legacy-updates", Legacy: true, Events: "updatecontainer,postupdatecontainer,updatepodsandbox,postupdatepodsandbox"},
	)
	r := runCmd(t, "--conformance", "--json", "--plugin-path", pluginDir)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseConformance(t, r.stdout)
	if got := receivedOf(resultOf(t, rep, "20-stopsonly"), "StopContainer"); got.Dedicated != 6 {
		t.Errorf("20-stopsonly StopContainer %+v, want 6 (ctr-0a, 1a, 1b, 1x, 1y, 2a)", got)
	}
	if got := receivedOf(resultOf(t, rep, "10-nostops"), "StopContainer"); got.Dedicated+got.StateChange != 0 {
		t.Errorf("10-nostops got StopContainer %+v", got)
	}
	legacy := resultOf(t, rep, "30-legacy-updates")
	if got := receivedOf(legacy, "PostUpdateContainer"); got.StateChange != 2 || got.Unimplemented == 0 {
		t.Errorf("30-legacy-updates PostUpdateContainer %+v, want 2 through StateChange", got)
	}
	if got := receivedOf(legacy, "UpdateContainer"); got.Dedicated != 2 {
		t.Errorf("30-legacy-updates UpdateContainer %+v, want 2 dedicated", got)
	}
}

// TestConformanceInterrupted: an interrupt (here, before the script) still
// prints the report, ends with why, and exits 1.
func TestConformanceInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := runCtx(ctx, &lockedWriter{w: &bytes.Buffer{}}, "--conformance")
	if r.code != exitFailed || !strings.Contains(r.stdout, "STOPPED EARLY: interrupted during the script") ||
		!strings.Contains(r.stdout, "(not issued: interrupted)") || !strings.Contains(r.stderr, "nritest: interrupted during the script") {
		t.Errorf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestConformanceNeverJoined: a plugin that fails to join is not left out:
// it fails, with why.
func TestConformanceNeverJoined(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(),
		testplugin.Config{Index: "10", Name: "noconf", Behaviours: map[string]testplugin.Behaviour{"Configure": {Fail: "not today"}}},
		testplugin.Config{Index: "20", Name: "good"},
	)
	r := runCmd(t, "--conformance", "--json", "--plugin-path", pluginDir)
	if r.code != exitFailed {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseConformance(t, r.stdout)
	bad := resultOf(t, rep, "10-noconf")
	if bad.Result != verdictFail || len(bad.Problems) != 1 || !strings.Contains(bad.Problems[0], "failed to join (configure)") ||
		!strings.Contains(bad.Problems[0], "not today") {
		t.Errorf("10-noconf: %s, problems %q", bad.Result, bad.Problems)
	}
	for _, c := range bad.Cases {
		if c.Result != verdictSkipped {
			t.Errorf("10-noconf, which never joined: %s %s", c.Case, c.Result)
		}
	}
	if good := resultOf(t, rep, "20-good"); good.Result != verdictPass {
		t.Errorf("20-good: %s %+v", good.Result, good.Cases)
	}
}
