// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// lifecycle is the scripted lifecycle: event and target of every step.
var lifecycle = []struct{ event, target string }{
	{"RunPodSandbox", "pod"},
	{"CreateContainer", "app"}, {"PostCreateContainer", "app"}, {"StartContainer", "app"}, {"PostStartContainer", "app"},
	{"CreateContainer", "sidecar"}, {"PostCreateContainer", "sidecar"}, {"StartContainer", "sidecar"}, {"PostStartContainer", "sidecar"},
	{"UpdateContainer", "app"}, {"PostUpdateContainer", "app"},
	{"UpdatePodSandbox", "pod"}, {"PostUpdatePodSandbox", "pod"},
	{"StopContainer", "app"}, {"RemoveContainer", "app"},
	{"StopContainer", "sidecar"}, {"RemoveContainer", "sidecar"},
	{"StopPodSandbox", "pod"}, {"RemovePodSandbox", "pod"},
}

var samples = []string{"10-logger", "20-annotator", "30-legacy"}

// checkLifecycle checks that every step ran, in order, with want as its
// plugins in order.
func checkLifecycle(t *testing.T, rows []row, want []string) {
	t.Helper()
	if len(rows) != len(lifecycle) {
		t.Fatalf("%d event rows, want %d: %+v", len(rows), len(lifecycle), rows)
	}
	for i, r := range rows {
		l := lifecycle[i]
		if r.event != l.event || r.target != l.target || r.result != resultOK || !slices.Equal(r.plugins, want) {
			t.Errorf("event %d = %s %s %s %v, want %s %s ok %v", i+1, r.event, r.target, r.result, r.plugins, l.event, l.target, want)
		}
	}
}

func legacyEvents() []string {
	var names []string
	for _, e := range testplugin.LegacyEvents {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

func TestDefaultRun(t *testing.T) {
	t.Parallel()
	r := runCmd(t)
	if r.code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	checkLifecycle(t, textRows(t, r.stdout), samples)

	// The annotator's change, under each CreateContainer.
	for _, want := range []string{
		"changed by 20-annotator:",
		"annotations: " + sampleAnnotation + "=true",
		"env: " + sampleEnv + "=true",
	} {
		if n := strings.Count(r.stdout, want); n != 2 {
			t.Errorf("%q appears %d times, want 2 (once per CreateContainer)\n%s", want, n, r.stdout)
		}
	}
	// The legacy plugin's deprecation, with all nine events, since when.
	if !regexp.MustCompile(`30-legacy  deprecated StateChange \(9 events\)  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d)  `).MatchString(r.stdout) {
		t.Errorf("no deprecation for 30-legacy with an RFC 3339 time:\n%s", r.stdout)
	}
	for _, e := range legacyEvents() {
		if !strings.Contains(r.stdout[strings.Index(r.stdout, "DEPRECATIONS"):], e) {
			t.Errorf("deprecation does not list %s", e)
		}
	}
	if !strings.Contains(r.stdout, "RESULT: ok") {
		t.Errorf("no ok verdict:\n%s", r.stdout)
	}
	// The deprecations are the report's; nothing else is worth a log line.
	if r.stderr != "" {
		t.Errorf("stderr without -v:\n%s", r.stderr)
	}
}

func TestJSON(t *testing.T) {
	t.Parallel()
	r := runCmd(t, "--json")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseJSON(t, r.stdout)
	checkLifecycle(t, jsonRows(rep), samples)
	if !rep.OK || rep.FailedEvents+rep.FailedCalls != 0 {
		t.Errorf("ok %v, failed events %d, calls %d", rep.OK, rep.FailedEvents, rep.FailedCalls)
	}

	// The same content as the text report.
	text := runCmd(t)
	if rows := textRows(t, text.stdout); !slices.EqualFunc(rows, jsonRows(rep), func(a, b row) bool {
		return a.event == b.event && a.target == b.target && a.result == b.result && slices.Equal(a.plugins, b.plugins)
	}) {
		t.Errorf("text and JSON rows differ:\n%+v\n%+v", rows, jsonRows(rep))
	}
	for _, e := range rep.Events {
		for _, c := range e.Changes {
			if !strings.Contains(text.stdout, c.Text) {
				t.Errorf("change %q of %s not in the text report", c.Text, e.Event)
			}
		}
	}

	create := rep.Events[1]
	wantChanges := []Change{
		{Plugin: "20-annotator", Text: "annotations: " + sampleAnnotation + "=true"},
		{Plugin: "20-annotator", Text: "env: " + sampleEnv + "=true"},
	}
	if create.Event != "CreateContainer" || !slices.Equal(plainChanges(create.Changes), wantChanges) {
		t.Errorf("CreateContainer changes = %+v, want %+v", create.Changes, wantChanges)
	}
	for _, c := range create.Calls {
		if want := c.Plugin == "20-annotator" && c.Event == ""; (c.Adjusted == 1) != want {
			t.Errorf("CreateContainer call %+v: adjusted %d", c, c.Adjusted)
		}
	}
	if ids := pluginIDs(rep.Active); !slices.Equal(ids, samples) {
		t.Errorf("plugins = %v, want %v", ids, samples)
	}
	for _, p := range rep.Active {
		if p.Kind != "pre-installed" || p.PID == 0 || !p.AllEvents || len(p.Events) != len(api.AllEvents.Events()) || p.StateChange != (p.Plugin == "30-legacy") {
			t.Errorf("plugin %+v", p)
		}
	}
	if n := len(rep.Active); n != len(samples) {
		t.Errorf("plugins %+v: want the samples alone", rep.Active)
	}
	if len(rep.Deprecations) != 1 {
		t.Fatalf("deprecations = %+v, want one", rep.Deprecations)
	}
	d := rep.Deprecations[0]
	got := slices.Sorted(slices.Values(d.Events))
	if d.Plugin != "30-legacy" || d.Deprecation != "deprecated StateChange" || !slices.Equal(got, legacyEvents()) || d.Since.IsZero() {
		t.Errorf("deprecation = %+v", d)
	}
}

// pluginIDs lists the plugins' IDs.
func pluginIDs(ps []PluginReport) []string {
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.Plugin)
	}
	return ids
}

// installTestPlugins writes a plugin directory with the given plugins.
func installTestPlugins(t *testing.T, dir string, cfgs ...testplugin.Config) string {
	t.Helper()
	pluginDir := filepath.Join(dir, "plugins")
	if err := os.MkdirAll(pluginDir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, cfg := range cfgs {
		path, err := testplugin.WriteConfig(dir, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := testplugin.WriteLauncher(pluginDir, cfg.Index, cfg.Name, path); err != nil {
			t.Fatal(err)
		}
	}
	return pluginDir
}

func TestPluginPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "events.log")
	pluginDir := installTestPlugins(t, dir,
		testplugin.Config{Index: "05", Name: "first", LogPath: log},
		testplugin.Config{Index: "15", Name: "creates", Events: "createcontainer", LogPath: log},
	)
	confDir := filepath.Join(dir, "conf.d")
	if err := os.Mkdir(confDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(confDir, "05-first.conf"), []byte("hello from conf.d"), 0o600); err != nil {
		t.Fatal(err)
	}

	r := runCmd(t, "--json", "--plugin-path", pluginDir, "--plugin-config-path", confDir)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseJSON(t, r.stdout)
	if ids := pluginIDs(rep.Active); !slices.Equal(ids, []string{"05-first", "15-creates"}) {
		t.Errorf("plugins = %v", ids)
	}
	if events := rep.Active[1].Events; !slices.Equal(events, []string{"CreateContainer"}) {
		t.Errorf("15-creates events = %q, want [CreateContainer]", events)
	}
	for i, e := range jsonRows(rep) {
		want := []string{"05-first"}
		if e.event == "CreateContainer" {
			want = append(want, "15-creates")
		}
		if !slices.Equal(e.plugins, want) {
			t.Errorf("event %d %s: plugins %v, want %v", i+1, e.event, e.plugins, want)
		}
	}
	if len(rep.Deprecations) != 0 || !strings.Contains(rep.PluginSource, pluginDir) {
		t.Errorf("deprecations %+v, plugin source %q", rep.Deprecations, rep.PluginSource)
	}
	recs, err := testplugin.ReadLog(log)
	if err != nil {
		t.Fatal(err)
	}
	if c := testplugin.Find(recs, "05-first", "Configure"); len(c) != 1 || c[0].Config != "hello from conf.d" {
		t.Errorf("05-first Configure records = %+v, want the conf.d config", c)
	}
}

// TestPluginFails: a plugin failing a setup event fails the run; the
// container's later setup events are skipped, its teardown is not.
func TestPluginFails(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(), testplugin.Config{
		Index: "40", Name: "failer",
		Behaviours: map[string]testplugin.Behaviour{"StartContainer": {Fail: "no start today"}},
	})
	r := runFailing(t, pluginDir, map[string]string{
		"StartContainer app":      resultFailed,
		"PostStartContainer app":  resultSkipped,
		"UpdateContainer app":     resultSkipped,
		"StopContainer app":       resultOK,
		"StartContainer sidecar":  resultFailed,
		"RemovePodSandbox pod":    resultOK,
		"CreateContainer sidecar": resultOK,
	})
	for _, want := range []string{"40-failer error", "error: ", "no start today", "(not issued: its StartContainer failed)", "RESULT: FAILED"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}
}

// runFailing runs nritest on pluginDir, expects the run to fail, and checks
// the result of the given steps ("EVENT TARGET").
func runFailing(t *testing.T, pluginDir string, want map[string]string) result {
	t.Helper()
	r := runCmd(t, "--plugin-path", pluginDir)
	if r.code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	results := map[string]string{}
	for _, row := range textRows(t, r.stdout) {
		results[row.event+" "+row.target] = row.result
	}
	for step, w := range want {
		if results[step] != w {
			t.Errorf("%s: %q, want %q", step, results[step], w)
		}
	}
	return r
}

// TestPodFails: when RunPodSandbox fails, the containers are never created,
// so they are not torn down either; the pod is.
func TestPodFails(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(), testplugin.Config{
		Index: "40", Name: "nopods",
		Behaviours: map[string]testplugin.Behaviour{"RunPodSandbox": {Fail: "no pods today"}},
	})
	r := runFailing(t, pluginDir, map[string]string{
		"RunPodSandbox pod":       resultFailed,
		"CreateContainer app":     resultSkipped,
		"StopContainer app":       resultSkipped,
		"RemoveContainer sidecar": resultSkipped,
		"StopPodSandbox pod":      resultOK,
		"RemovePodSandbox pod":    resultOK,
	})
	if !strings.Contains(r.stdout, "(not issued: never created)") {
		t.Errorf("report does not say why the containers' teardown was not issued:\n%s", r.stdout)
	}
}

// TestPluginTimeout: a plugin that times out on a notification is dropped;
// the event itself succeeds, the run fails.
func TestPluginTimeout(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(),
		testplugin.Config{Index: "10", Name: "ok"},
		testplugin.Config{Index: "20", Name: "stuck", Behaviours: map[string]testplugin.Behaviour{"PostCreateContainer": {Hang: true}}},
	)
	r := runCmd(t, "--json", "--plugin-path", pluginDir, "--request-timeout", "200ms")
	if r.code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseJSON(t, r.stdout)
	post := rep.Events[2]
	if post.Event != "PostCreateContainer" || post.Result != resultOK || len(post.Calls) != 2 || post.Calls[1].Outcome != "timeout" {
		t.Errorf("PostCreateContainer = %+v", post)
	}
	if !slices.Equal(rep.Dropped, []string{"20-stuck"}) || !slices.Equal(pluginIDs(rep.Active), []string{"10-ok"}) {
		t.Errorf("dropped %v, active %v", rep.Dropped, pluginIDs(rep.Active))
	}
	if rep.OK || rep.FailedEvents != 0 || rep.FailedCalls != 1 {
		t.Errorf("ok %v, failed events %d, calls %d", rep.OK, rep.FailedEvents, rep.FailedCalls)
	}
	for _, e := range rep.Events[3:] {
		if slices.ContainsFunc(e.Calls, func(c Call) bool { return c.Plugin == "20-stuck" }) {
			t.Errorf("%s called the dropped plugin", e.Event)
		}
	}
}

// TestPluginsThatNeverJoin: plugins that fail to start, register or
// configure, and files that are not plugins, are listed with the reason, and
// fail the run.
func TestPluginsThatNeverJoin(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(),
		testplugin.Config{Index: "10", Name: "ok"},
		testplugin.Config{Index: "20", Name: "noregister", Behaviours: map[string]testplugin.Behaviour{testplugin.KeyRegister: {Exit: 7}}},
		testplugin.Config{Index: "30", Name: "noconfig", Behaviours: map[string]testplugin.Behaviour{testplugin.KeyConfigure: {Fail: "bad config"}}},
	)
	if err := os.WriteFile(filepath.Join(pluginDir, "40-notexec"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCmd(t, "--json", "--plugin-path", pluginDir)
	if r.code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseJSON(t, r.stdout)
	got := map[string]string{}
	for _, c := range rep.PluginChanges {
		got[c.Plugin] = c.Change + " " + c.Phase + ": " + c.Reason
	}
	want := map[string][]string{
		"20-noregister": {"failed register: ", "exit status 7"},
		"30-noconfig":   {"failed configure: ", "bad config"},
		"40-notexec":    {"skipped : ", "not executable"},
	}
	for plugin, w := range want {
		if !strings.HasPrefix(got[plugin], w[0]) || !strings.Contains(got[plugin], w[1]) {
			t.Errorf("%s: %q, want %q ... %q", plugin, got[plugin], w[0], w[1])
		}
	}
	if len(got) != len(want) || rep.OK || rep.FailedCalls != 0 {
		t.Errorf("changes %q, ok %v, failed calls %d", got, rep.OK, rep.FailedCalls)
	}
	if !slices.Equal(pluginIDs(rep.Active), []string{"10-ok"}) {
		t.Errorf("active %v", pluginIDs(rep.Active))
	}
}

func TestPluginPathMustExist(t *testing.T) {
	t.Parallel()
	r := runCmd(t, "--plugin-path", filepath.Join(t.TempDir(), "missing"))
	if r.code != exitUsage || !strings.Contains(r.stderr, "--plugin-path") {
		t.Errorf("exit %d, stderr %q; want a usage error naming --plugin-path", r.code, r.stderr)
	}
}

func TestNoPlugins(t *testing.T) {
	t.Parallel()
	r := runCmd(t, "--plugin-path", "", "--json")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	rep := parseJSON(t, r.stdout)
	checkLifecycle(t, jsonRows(rep), nil)
	if len(pluginIDs(rep.Active)) != 0 || rep.PluginSource != "no pre-installed plugins" {
		t.Errorf("plugins %+v from %q", rep.Active, rep.PluginSource)
	}
}

// TestSocketWait drives the lifecycle only once an external plugin has
// connected to the socket.
func TestSocketWait(t *testing.T) {
	t.Parallel()
	dir := shortTempDir(t)
	sock := filepath.Join(dir, "nri.sock")
	stderr := &lockedWriter{w: &bytes.Buffer{}, signal: "nritest: waiting", seen: make(chan struct{})}
	listening := stderr.seen

	finished := make(chan result, 1)
	go func() {
		finished <- runWith(stderr, "--json", "--plugin-path", "", "--socket", sock, "--wait", "1")
	}()
	select {
	case <-listening: // the socket listens before the tool waits
	case d := <-finished:
		t.Fatalf("run ended before waiting: exit %d\n%s", d.code, d.stderr)
	case <-time.After(testLimit):
		t.Fatal("the tool never started waiting")
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := testplugin.Config{Index: "50", Name: "ext", SocketPath: sock, Events: "runpodsandbox,createcontainer"}
	cmd, err := testplugin.StartExternal(ctx, cfg, filepath.Join(dir, "ext.json"))
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	var d result
	select {
	case d = <-finished:
	case <-time.After(testLimit):
		t.Fatal("run did not finish")
	}
	select {
	case err := <-exited: // the runtime's Stop ends the plugin
		if err != nil {
			t.Errorf("external plugin: %v", err)
		}
	case <-time.After(testLimit):
		cancel()
		<-exited
		t.Error("external plugin did not exit after the runtime stopped")
	}
	if d.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", d.code, d.stdout, d.stderr)
	}
	if lineWith(d.stderr, "nritest: 50-ext joined (external)") == "" {
		t.Errorf("no progress line as the plugin joined:\n%s", d.stderr)
	}
	rep := parseJSON(t, d.stdout)
	if len(rep.Active) != 1 || rep.Active[0].Plugin != "50-ext" || rep.Active[0].Kind != "external" {
		t.Errorf("plugins = %+v", rep.Active)
	}
	for _, e := range jsonRows(rep) {
		want := []string(nil)
		if ev, _ := api.ParseEvent(e.event); ev == api.Event_RUN_POD_SANDBOX || ev == api.Event_CREATE_CONTAINER {
			want = []string{"50-ext"}
		}
		if !slices.Equal(e.plugins, want) {
			t.Errorf("%s: plugins %v, want %v", e.event, e.plugins, want)
		}
	}
}

// TestWaitTimeout: a run that gives up waiting still prints its report,
// JSON or text, then says why it stopped, and exits 1.
func TestWaitTimeout(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(shortTempDir(t), "nri.sock")
	args := []string{"--socket", sock, "--wait", "2", "--wait-timeout", "200ms"}
	r := runCmd(t, append(args, "--json")...)
	if r.code != exitFailed || !strings.Contains(r.stderr, "nritest: only 0 of 2 external plugins") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	rep := parseJSON(t, r.stdout)
	if rep.OK || !strings.HasPrefix(rep.Stopped, "only 0 of 2 external plugins") || len(rep.Events) != 0 {
		t.Errorf("ok %v, stopped %q, events %+v", rep.OK, rep.Stopped, rep.Events)
	}
	if !slices.Equal(pluginIDs(rep.Active), samples) { // what joined is still reported
		t.Errorf("plugins %v, want the samples", pluginIDs(rep.Active))
	}

	r = runCmd(t, args...)
	for _, want := range []string{"nritest: simulated runtime", "PLUGINS", "RESULT: FAILED", "STOPPED EARLY: only 0 of 2 external plugins"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}
	// It ends with why it stopped, and what to check: the plugin's index
	// and name, without which the reference stub exits before connecting.
	if r.code != exitFailed || !strings.HasSuffix(r.stdout, `idx-pluginname expected`+"\n") ||
		!strings.Contains(r.stdout, "(--wait-timeout); a plugin that connects itself needs an index and a name") {
		t.Errorf("exit %d; the report does not end with why it stopped and the hint:\n%s", r.code, r.stdout)
	}
}

// TestWaitReplaced: two external plugins of the same name count once, and
// the report says that one replaced the other.
func TestWaitReplaced(t *testing.T) {
	t.Parallel()
	dir := shortTempDir(t)
	sock := filepath.Join(dir, "nri.sock")
	stderr := &lockedWriter{w: &bytes.Buffer{}}
	waiting := stderr.watch("nritest: waiting")
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	finished := make(chan result, 1)
	go func() {
		finished <- runCtx(ctx, stderr, "-v", "--json", "--no-samples", "--socket", sock, "--wait", "2", "--wait-timeout", "1m")
	}()
	select {
	case <-waiting:
	case r := <-finished:
		t.Fatalf("run ended before waiting: exit %d\n%s", r.code, r.stderr)
	}
	replacedLog := stderr.watch("plugin replaced by a new instance") // one watch at a time
	cfg := testplugin.Config{Index: "50", Name: "twin", SocketPath: sock}
	for i := range 2 {
		pctx, stopPlugin := context.WithCancel(context.Background())
		cmd, err := testplugin.StartExternal(pctx, cfg, filepath.Join(dir, fmt.Sprintf("twin%d.json", i)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { stopPlugin(); cmd.Wait() })
	}
	select {
	case <-replacedLog: // both joined, as one
	case <-time.After(testLimit):
		t.Fatal("the second plugin never replaced the first")
	}
	interrupt() // Ctrl-C: the wait for a second plugin would never end
	r := <-finished
	if r.code != exitFailed {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseJSON(t, r.stdout)
	want := "50-twin connected more than once: each new instance replaced the earlier one"
	if !strings.Contains(rep.Stopped, "(1 of 2 connected)") || !strings.Contains(rep.Stopped, want) {
		t.Errorf("stopped %q, want it to say 1 of 2 and %q", rep.Stopped, want)
	}
	if !slices.ContainsFunc(rep.PluginChanges, func(c PluginChangeReport) bool { return c.Plugin == "50-twin" && c.Reason == "replaced" }) {
		t.Errorf("plugin changes %+v lack 50-twin replaced", rep.PluginChanges)
	}
}

// TestNoSamples: --socket keeps the sample plugins next to the external
// ones; --no-samples leaves them out.
func TestNoSamples(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want []string
	}{
		{nil, append(slices.Clone(samples), "50-ext")},
		{[]string{"--no-samples"}, []string{"50-ext"}},
	} {
		sock := filepath.Join(shortTempDir(t), "nri.sock")
		stderr := &lockedWriter{w: &bytes.Buffer{}}
		waiting := stderr.watch("nritest: waiting")
		finished := make(chan result, 1)
		go func() {
			finished <- runWith(stderr, append([]string{"--json", "--socket", sock, "--wait", "1"}, c.args...)...)
		}()
		select {
		case <-waiting:
		case r := <-finished:
			t.Fatalf("%q: run ended before waiting: exit %d\n%s", c.args, r.code, r.stderr)
		}
		connectSpy(t, sock, testplugin.Config{Index: "50", Name: "ext", Events: "runpodsandbox"}, nil)
		r := <-finished
		if r.code != exitOK {
			t.Fatalf("%q: exit %d\n%s\n%s", c.args, r.code, r.stdout, r.stderr)
		}
		rep := parseJSON(t, r.stdout)
		if ids := pluginIDs(rep.Active); !slices.Equal(ids, c.want) {
			t.Errorf("%q: plugins %v, want %v", c.args, ids, c.want)
		}
		if c.args != nil && rep.PluginSource != "no pre-installed plugins" {
			t.Errorf("%q: plugin source %q", c.args, rep.PluginSource)
		}
	}
}

// TestDroppedLegacyPluginStillDeprecated: a legacy plugin that crashes on
// its first event is reported as deprecated, and as left.
func TestDroppedLegacyPluginStillDeprecated(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(),
		testplugin.Config{Index: "10", Name: "old", Legacy: true, Behaviours: map[string]testplugin.Behaviour{"RunPodSandbox": {Exit: 3}}},
		testplugin.Config{Index: "20", Name: "new"},
	)
	r := runCmd(t, "--json", "--plugin-path", pluginDir)
	if r.code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseJSON(t, r.stdout)
	if len(rep.Deprecations) != 1 || rep.Deprecations[0].Plugin != "10-old" || !slices.Equal(rep.Deprecations[0].Events, []string{"RunPodSandbox"}) {
		t.Errorf("deprecations %+v, want 10-old for RunPodSandbox", rep.Deprecations)
	}
	if !slices.Equal(rep.Dropped, []string{"10-old"}) {
		t.Errorf("dropped %v, want [10-old]", rep.Dropped)
	}
}
