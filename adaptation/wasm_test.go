// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

package adaptation_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	rspec "github.com/opencontainers/runtime-spec/specs-go"
	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/ocispec"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/interoptest"
	"github.com/nrikit/nrikit/internal/testplugin"
	"github.com/nrikit/nrikit/internal/wasmhost"
)

// wasmOptions share compiled guest code between the tests of this process
// (and the next runs): compiling a Go-built guest takes seconds, many more
// under the race detector.
func wasmOptions(t testing.TB, more ...adaptation.Option) []adaptation.Option {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "nrikit-test", "wasm-code")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return append([]adaptation.Option{adaptation.WithWASMCompilationCacheDir(dir)}, more...)
}

// wasmPreinstall copies a guest built from testdata/interop/<module> into the
// plugin directory as idx-name, executable, with its settings as config.
func (e *env) wasmPreinstall(module, idx, name string, settings ...string) {
	e.t.Helper()
	code, err := os.ReadFile(interoptest.Binary(e.t, module))
	if err != nil {
		e.t.Fatal(err)
	}
	id := idx + "-" + name
	if err := os.WriteFile(filepath.Join(e.pluginDir, id), code, 0o755); err != nil {
		e.t.Fatal(err)
	}
	conf := strings.Join(settings, "\n")
	if err := os.WriteFile(filepath.Join(e.confDir, id+".conf"), []byte(conf), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// guestRecord is one request as a WASM test guest reports it through the
// host's log function (testdata/interop/wasm).
type guestRecord struct {
	Event      string `json:"event"`
	RPC        string `json:"rpc"`
	Pod        string `json:"pod"`
	Container  string `json:"container"`
	API        string `json:"api"`
	Config     string `json:"config"`
	Runtime    string `json:"runtime"`
	Pods       int    `json:"pods"`
	Containers int    `json:"containers"`
	Action     string `json:"action"`
}

// guestRecords are the records a WASM guest logged, found by the plugin
// field the host gave its log lines.
func (e *env) guestRecords(id string) []guestRecord {
	e.t.Helper()
	var out []guestRecord
	for _, entry := range e.logged(logrus.Fields{"plugin": id}) {
		if !strings.HasPrefix(entry.Message, `{"event"`) {
			continue
		}
		var r guestRecord
		if err := json.Unmarshal([]byte(entry.Message), &r); err != nil {
			e.t.Fatalf("bad guest record %q: %v", entry.Message, err)
		}
		out = append(out, r)
	}
	return out
}

func (e *env) guestEvents(id string) []string {
	var out []string
	for _, r := range e.guestRecords(id) {
		if r.Event != "Configure" && r.Event != "Synchronize" && r.Event != "Shutdown" {
			out = append(out, r.Event)
		}
	}
	return out
}

// TestWASMPluginInterop drives a guest built on the reference's released
// WASM guest API (v0.12.5) through every event of a pod with two containers.
func TestWASMPluginInterop(t *testing.T) {
	e := newEnv(t, wasmOptions(t)...)
	running := testPod("running")
	e.store.pods = []*api.PodSandbox{running}
	e.store.ctrs = []*api.Container{testContainer("running-c", running)}
	e.wasmPreinstall("wasm", "30", "guest",
		"annotation=interop.nrikit.io/wasm=v0.12.5", "env=NRIKIT_INTEROP_WASM=1")
	e.start()
	e.waitPlugins("30-guest")
	if info := e.a.Plugins()[0]; info.Kind != adaptation.KindWASM || info.PID != 0 || info.StateChange {
		t.Errorf("Plugins()[0] = %+v, want a wasm plugin without pid or StateChange", info)
	}

	created := runLifecycle(t, e.a, "pw")
	if got := e.guestEvents("30-guest"); !equal(got, fullLifecycleEvents) {
		t.Errorf("guest got %v\nwant %v", got, fullLifecycleEvents)
	}
	recs := e.guestRecords("30-guest")
	for _, r := range recs {
		if r.RPC != r.Event || r.API != "v0.12.5" {
			t.Errorf("record %+v: want the dedicated export of a v0.12.5 guest", r)
		}
	}
	if c := recs[0]; c.Event != "Configure" || c.Runtime != "nritest-runtime/v1.0.0" || !strings.Contains(c.Config, "annotation=") {
		t.Errorf("first record %+v, want Configure with the drop-in config", c)
	}
	if s := recs[1]; s.Event != "Synchronize" || s.Pods != 1 || s.Containers != 1 {
		t.Errorf("second record %+v, want Synchronize with one pod and one container", s)
	}

	for _, rsp := range created {
		spec := &rspec.Spec{Process: &rspec.Process{Env: []string{"A=1"}}}
		if err := ocispec.Apply(spec, rsp.GetAdjust()); err != nil {
			t.Fatalf("Apply: %v", err)
		}
		if spec.Annotations["interop.nrikit.io/wasm"] != "v0.12.5" || !slices.Contains(spec.Process.Env, "NRIKIT_INTEROP_WASM=1") {
			t.Errorf("spec after the guest's adjustment: annotations %v, env %v", spec.Annotations, spec.Process.Env)
		}
	}
	if d := e.a.Deprecations(); len(d) != 0 {
		t.Errorf("deprecations of a v0.12.5 guest: %+v", d)
	}

	e.stop()
	recs = e.guestRecords("30-guest")
	if last := recs[len(recs)-1]; last.Event != "Shutdown" {
		t.Errorf("last record %+v, want Shutdown", last)
	}
	if n := wasmhost.Live(); n != 0 {
		t.Errorf("%d WASM instances still open after Stop", n)
	}
}

// TestWASMLegacyGuest loads a guest built on the v0.11.0 guest API, which the
// reference's own host refuses: it lacks the nine dedicated exports and gets
// those events through StateChange, recorded as deprecated.
func TestWASMLegacyGuest(t *testing.T) {
	e := newEnv(t, wasmOptions(t)...)
	e.wasmPreinstall("wasm-legacy", "40", "old", "annotation=interop.nrikit.io/old=v0.11.0")
	e.start()
	e.waitPlugins("40-old")

	created := runLifecycle(t, e.a, "pl")
	if got := e.guestEvents("40-old"); !equal(got, fullLifecycleEvents) {
		t.Errorf("legacy guest got %v\nwant %v", got, fullLifecycleEvents)
	}
	relayed := map[string]bool{}
	for _, r := range e.guestRecords("40-old") {
		if r.RPC == "StateChange" {
			relayed[r.Event] = true
		}
	}
	if len(relayed) != 9 {
		t.Errorf("events relayed through StateChange: %v, want the nine", relayed)
	}
	if got := created[0].GetAdjust().GetAnnotations()["interop.nrikit.io/old"]; got != "v0.11.0" {
		t.Errorf("legacy guest's annotation = %q", got)
	}
	if info := e.a.Plugins()[0]; !info.StateChange || info.Kind != adaptation.KindWASM {
		t.Errorf("Plugins()[0] = %+v, want a wasm plugin on StateChange", info)
	}
	deps := e.a.Deprecations()
	if len(deps) != 1 || deps[0].Plugin != "40-old" {
		t.Fatalf("Deprecations() = %+v, want 40-old", deps)
	}
	if n := len(e.logged(logrus.Fields{"plugin": "40-old", "event": "RunPodSandbox"})); n == 0 {
		t.Errorf("no deprecation warning for RunPodSandbox")
	}
}

// TestWASMHostileGuests: guests that trap, panic, loop, sleep or grow their
// memory without bound in CreateContainer are stopped and dropped; the event
// goes on without them, as the policy table says for setup events, and the
// other plugins get everything.
func TestWASMHostileGuests(t *testing.T) {
	// The timeout leaves a guest that grows its memory time to reach the
	// ceiling on a loaded machine; the loops and sleeps wait it out.
	timeout := 5 * time.Second
	if raceEnabled {
		timeout = 10 * time.Second
	}
	e := newEnv(t, wasmOptions(t,
		adaptation.WithRequestTimeout(timeout),
		adaptation.WithWASMMemoryLimit(16<<20))...)
	hostile := map[string][2]string{ // plugin -> what its drop and its error must say
		"10-trap":  {"lost during CreateContainer (trapped)", "wasm error: unreachable"},
		"11-panic": {"lost during CreateContainer (trapped)", "panic: wasm guest: CreateContainer panics as configured"},
		"12-grow":  {"lost during CreateContainer (trapped)", "runtime: out of memory"},
		// Stopped at the deadline: the dispatch reports the timeout, or the
		// instance's end is noticed first.
		"13-loop":  {"CreateContainer", "plugin timed out after " + timeout.String()},
		"14-sleep": {"CreateContainer", "plugin timed out after " + timeout.String()},
		"15-keep":  {"CreateContainer", "plugin timed out after " + timeout.String()},
	}
	e.wasmPreinstall("wasm", "10", "trap", "trap=CreateContainer")
	e.wasmPreinstall("wasm", "11", "panic", "panic=CreateContainer")
	e.wasmPreinstall("wasm", "12", "grow", "grow=CreateContainer")
	e.wasmPreinstall("wasm", "13", "loop", "loop=CreateContainer")
	e.wasmPreinstall("wasm", "14", "sleep", "sleep=CreateContainer")
	// Its policy keeps it after a timeout, but its instance is gone.
	e.wasmPreinstall("wasm", "15", "keep", "loop=CreateContainer", "failure_policy=keep_connected")
	e.wasmPreinstall("wasm", "50", "good", "annotation=interop.nrikit.io/good=yes")
	e.preinstall("60", "proc", testplugin.Config{})
	e.start()
	e.waitPlugins("10-trap", "11-panic", "12-grow", "13-loop", "14-sleep", "15-keep", "50-good", "60-proc")

	defer func() {
		if t.Failed() {
			e.dumpLog()
		}
	}()
	created := runLifecycle(t, e.a, "ph")
	if got := created[0].GetAdjust().GetAnnotations()["interop.nrikit.io/good"]; got != "yes" {
		t.Errorf("the good guest's adjustment is missing: %v", created[0].GetAdjust())
	}
	if got := e.guestEvents("50-good"); !equal(got, fullLifecycleEvents) {
		t.Errorf("good guest got %v", got)
	}
	if got := e.events("proc"); !equal(got, fullLifecycleEvents) {
		t.Errorf("process plugin got %v", got)
	}
	e.waitPlugins("50-good", "60-proc")
	for id, want := range hostile {
		reason := e.waitDropped(id)
		if !strings.Contains(reason, want[0]) || strings.HasPrefix(want[1], "plugin timed out") &&
			reason != "timeout during CreateContainer" && reason != "lost during CreateContainer (stopped at its deadline)" {
			t.Errorf("%s dropped for %q, want it to say %q", id, reason, want[0])
		}
		found, explained := true, false
		for _, entry := range e.logged(logrus.Fields{"plugin": id}) {
			if err, ok := entry.Data["error"].(string); ok && saysEither(err, want[1], stoppedAtDeadline(want[1])) && !strings.Contains(err, "\n") {
				explained = true
			}
		}
		if !found || !explained {
			for _, en := range e.logged(logrus.Fields{"plugin": id}) {
				t.Logf("%s: %s %s %v", id, en.Level, en.Message, en.Data)
			}
			t.Errorf("%s: dropped %v, with a one-line error saying %q %v", id, found, want[1], explained)
		}
		if got := e.guestEvents(id); len(got) < 2 || got[1] != "CreateContainer" {
			t.Errorf("%s got %v, want its events to end at the first CreateContainer", id, got)
		}
	}
	if n := wasmhost.Live(); n != 1 {
		t.Errorf("%d WASM instances open, want only the good guest's", n)
	}
}

// stoppedAtDeadline is what the error of a guest stopped at its deadline
// says when the instance's end is noticed before the dispatch's timeout
// (which says want), on a loaded machine; "" for other failures.
func stoppedAtDeadline(want string) string {
	if strings.HasPrefix(want, "plugin timed out") {
		return "module closed with context deadline exceeded"
	}
	return ""
}

// saysEither reports whether s contains a, or b when b is not empty.
func saysEither(s, a, b string) bool {
	return strings.Contains(s, a) || b != "" && strings.Contains(s, b)
}

// TestWASMNotReplacedByAnExternalPlugin: an external plugin registering
// with a WASM plugin's index and name is refused and the guest stays; at
// Stop the guest gets Shutdown and its instance is closed.
func TestWASMNotReplacedByAnExternalPlugin(t *testing.T) {
	e := newEnv(t, wasmOptions(t)...)
	e.wasmPreinstall("wasm", "30", "guest")
	e.start()
	e.waitPlugins("30-guest")
	e.external("30", "guest", testplugin.Config{})
	e.waitLogged(logrus.Fields{"plugin": "30-guest", "phase": "register"})
	if info := e.a.Plugins()[0]; info.Kind != adaptation.KindWASM {
		t.Errorf("Plugins()[0] = %+v, want the WASM guest", info)
	}
	e.stop()
	recs := e.guestRecords("30-guest")
	if last := recs[len(recs)-1]; last.Event != "Shutdown" {
		t.Errorf("the guest's last record %+v, want Shutdown", last)
	}
	if n := wasmhost.Live(); n != 0 {
		t.Errorf("%d WASM instances open after Stop", n)
	}
}

// TestWASMSymlinkedModuleNotExecutable: a symlink to a WASM module of mode
// 0644 is loaded, as the reference loads it (it checks the execute bit of
// the link, 0777, and then only reads the module). A module in the plugin
// directory itself still needs its own execute bit, and a symlink to a
// native program that is not executable is still skipped: it could not be
// run.
func TestWASMSymlinkedModuleNotExecutable(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, wasmOptions(t, adaptation.WithPluginChanges(changes.add))...)
	code, err := os.ReadFile(interoptest.Binary(t, "wasm"))
	if err != nil {
		t.Fatal(err)
	}
	modules := filepath.Join(e.dir, "modules")
	if err := os.Mkdir(modules, 0o755); err != nil {
		t.Fatal(err)
	}
	module := filepath.Join(modules, "guest.wasm")
	writeFile(t, module, string(code), 0o644)
	symlinkOrFail(t, module, filepath.Join(e.pluginDir, "40-linked"))
	writeFile(t, filepath.Join(e.confDir, "40-linked.conf"), "annotation=interop.nrikit.io/linked=yes")
	writeFile(t, filepath.Join(e.pluginDir, "41-plain"), string(code), 0o644)
	script := filepath.Join(modules, "script")
	writeFile(t, script, "#!/bin/sh\nexit 0\n", 0o644)
	symlinkOrFail(t, script, filepath.Join(e.pluginDir, "42-script"))

	e.start()
	e.waitPlugins("40-linked")
	if info := e.a.Plugins()[0]; info.Kind != adaptation.KindWASM {
		t.Errorf("Plugins()[0] = %+v, want the linked module as a wasm plugin", info)
	}
	if recs := e.guestRecords("40-linked"); len(recs) == 0 || !strings.Contains(recs[0].Config, "linked=yes") {
		t.Errorf("the linked guest's records %+v, want Configure with its config", recs)
	}
	expectChanges(t, changes, "41-plain", [2]string{"skipped :", "not executable (mode 0644)"})
	expectChanges(t, changes, "42-script", [2]string{"skipped :", "not executable (mode 0644)"})
}

// TestWASMOversizedModuleRefused: a file over wasmhost.MaxModuleSize that
// starts like a module is refused before it is read, with a warning and a
// PluginChange that give its size and the limit. The file is sparse; read,
// it would take 256 MiB of the runtime's memory and more to compile.
func TestWASMOversizedModuleRefused(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, wasmOptions(t, adaptation.WithPluginChanges(changes.add))...)
	path := filepath.Join(e.pluginDir, "50-huge")
	writeFile(t, path, "\x00asm\x01\x00\x00\x00", 0o755)
	if err := os.Truncate(path, wasmhost.MaxModuleSize+1); err != nil {
		t.Fatal(err)
	}
	e.start()
	reason := `nrikit: WASM plugin "` + path + `": file too large: 268435457 bytes (256.0 MiB), more than the limit of 256 MiB`
	expectChanges(t, changes, "50-huge", [2]string{"failed start:", reason})
	if len(e.logged(logrus.Fields{"plugin": "50-huge", "error": reason})) != 1 {
		e.dumpLog()
		t.Errorf("no warning with the reason")
	}
	if n := wasmhost.Live(); n != 0 {
		t.Errorf("%d WASM instances open", n)
	}
}
