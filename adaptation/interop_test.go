// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/fakenode"
	"github.com/nrikit/nrikit/internal/interoptest"
)

// refRecord is one line of a reference-stub plugin's event log
// (testdata/interop/README.md).
type refRecord struct {
	Plugin       string   `json:"plugin"`
	Event        string   `json:"event"`
	RPC          string   `json:"rpc"`
	Pod          string   `json:"pod"`
	PodName      string   `json:"pod_name"`
	Container    string   `json:"container"`
	CtrName      string   `json:"container_name"`
	Pods         int      `json:"pods"`
	Containers   int      `json:"containers"`
	PodIDs       []string `json:"pod_ids"`
	ContainerIDs []string `json:"container_ids"`
}

func (e *env) refLog() string { return filepath.Join(e.dir, "ref-events.log") }

func (e *env) refRecords(plugin string) []refRecord {
	e.t.Helper()
	f, err := os.Open(e.refLog())
	if err != nil {
		e.t.Fatal(err)
	}
	defer f.Close()
	var out []refRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r refRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			e.t.Fatalf("bad log line %q: %v", sc.Text(), err)
		}
		if r.Plugin == plugin {
			out = append(out, r)
		}
	}
	if err := sc.Err(); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// refEvents lists a reference plugin's lifecycle events, leaving out the
// handshake.
func (e *env) refEvents(plugin string) []string {
	var out []string
	for _, r := range e.refRecords(plugin) {
		if r.Event != "Configure" && r.Event != "Synchronize" && r.Event != "Shutdown" {
			out = append(out, r.Event)
		}
	}
	return out
}

// refPreinstall links a reference-stub plugin into the plugin directory with
// its settings as drop-in config.
func (e *env) refPreinstall(module, idx, name string, settings ...string) {
	e.t.Helper()
	bin := interoptest.Binary(e.t, module)
	if err := os.Symlink(bin, filepath.Join(e.pluginDir, idx+"-"+name)); err != nil {
		e.t.Fatal(err)
	}
	conf := append([]string{"log=" + e.refLog()}, settings...)
	writeFile(e.t, filepath.Join(e.confDir, idx+"-"+name+".conf"), strings.Join(conf, "\n")+"\n")
}

// refExternal runs a reference-stub plugin that connects to the socket.
func (e *env) refExternal(module, idx, name string, settings ...string) {
	e.t.Helper()
	e.refExternalEnv(nil, module, idx, name, settings...)
}

// refExternalEnv is refExternal with extra environment variables for the
// plugin process (KEY=VALUE), such as GOMAXPROCS.
func (e *env) refExternalEnv(extra []string, module, idx, name string, settings ...string) {
	e.t.Helper()
	bin := interoptest.Binary(e.t, module)
	args := []string{"-idx", idx, "-name", name, "-socket", e.socket, "-log", e.refLog()}
	for _, s := range settings {
		k, v, _ := strings.Cut(s, "=")
		args = append(args, "-"+k, v)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "NRI_") })
	cmd.Env = append(cmd.Env, extra...)
	out, err := os.Create(filepath.Join(e.dir, idx+"-"+name+".out"))
	if err != nil {
		e.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); out.Close() }()
	e.t.Cleanup(func() {
		e.stop()
		select {
		case <-exited:
		case <-time.After(waitLimit):
			_ = cmd.Process.Kill()
			<-exited
			e.t.Errorf("reference plugin %s-%s did not exit when the runtime stopped", idx, name)
		}
		if e.t.Failed() {
			b, _ := os.ReadFile(out.Name())
			e.t.Logf("reference plugin %s-%s output:\n%s", idx, name, b)
		}
	})
}

// TestInteropModern: a plugin built on the reference stub v0.12.5, as an
// external and as a pre-installed plugin, through one full lifecycle.
func TestInteropModern(t *testing.T) {
	rec := &recorder{}
	e := newEnv(t, adaptation.WithDeprecationRecorder(rec))
	e.refPreinstall("modern", "20", "refpre")
	e.start()
	e.refExternal("modern", "10", "refext")
	e.waitPlugins("10-refext", "20-refpre")

	created := runLifecycle(t, e.a, "pm")

	for _, id := range []string{"10-refext", "20-refpre"} {
		if got := e.refEvents(id); !slices.Equal(got, fullLifecycleEvents) {
			t.Errorf("%s got\n%v\nwant\n%v", id, got, fullLifecycleEvents)
		}
		for _, r := range e.refRecords(id) {
			if r.RPC == "StateChange" {
				t.Errorf("%s got %s through StateChange", id, r.Event)
			}
			checkContent(t, r)
		}
	}
	ann := created[0].GetAdjust().GetAnnotations()
	if ann["interop.nrikit.io/refext"] != "v0.12.5" || ann["interop.nrikit.io/refpre"] != "v0.12.5" {
		t.Errorf("adjustments not returned: %v", ann)
	}
	if len(rec.list()) != 0 || len(e.a.Deprecations()) != 0 {
		t.Errorf("a modern plugin was recorded as deprecated: %v", rec.list())
	}
}

// TestInteropLegacy: a plugin built on the reference stub v0.11.0 beside a
// modern one, in both orders.
func TestInteropLegacy(t *testing.T) {
	for _, order := range [][2]string{{"10", "20"}, {"20", "10"}} {
		t.Run("legacy-at-"+order[0], func(t *testing.T) {
			rec := &recorder{}
			e := newEnv(t, adaptation.WithDeprecationRecorder(rec))
			legacy, modern := order[0]+"-legacy", order[1]+"-modern"
			e.refPreinstall("legacy", order[0], "legacy", "fail=RemovePodSandbox")
			e.refPreinstall("modern", order[1], "modern")
			e.start()
			e.waitPlugins(sortedIDs(legacy, modern)...)

			created := runLifecycle(t, e.a, "r1")
			ann := created[1].GetAdjust().GetAnnotations()
			if ann["interop.nrikit.io/legacy"] != "v0.11.0" || ann["interop.nrikit.io/modern"] != "v0.12.5" {
				t.Errorf("adjustments not applied: %v", ann)
			}
			if n := len(rec.list()); n != 9 {
				t.Fatalf("deprecation records after one lifecycle: %d, want 9\n%s", n, strings.Join(rec.list(), "\n"))
			}
			runLifecycle(t, e.a, "r2")
			if n := len(rec.list()); n != 9 {
				t.Fatalf("deprecation records after two lifecycles: %d, want 9", n)
			}

			twice := append(slices.Clone(fullLifecycleEvents), fullLifecycleEvents...)
			for _, id := range []string{legacy, modern} {
				if got := e.refEvents(id); !slices.Equal(got, twice) {
					t.Errorf("%s got\n%v\nwant\n%v", id, got, twice)
				}
			}
			legacyOnly := map[string]bool{}
			for _, ev := range []api.Event{api.Event_RUN_POD_SANDBOX, api.Event_STOP_POD_SANDBOX, api.Event_REMOVE_POD_SANDBOX,
				api.Event_POST_UPDATE_POD_SANDBOX, api.Event_POST_CREATE_CONTAINER, api.Event_START_CONTAINER,
				api.Event_POST_START_CONTAINER, api.Event_POST_UPDATE_CONTAINER, api.Event_REMOVE_CONTAINER} {
				legacyOnly[ev.Name()] = true
			}
			for _, r := range e.refRecords(legacy) {
				if want := legacyOnly[r.Event]; (r.RPC == "StateChange") != want {
					t.Errorf("legacy got %s via %s", r.Event, r.RPC)
				}
				checkContent(t, r)
			}
			for _, r := range e.refRecords(modern) {
				if r.RPC == "StateChange" {
					t.Errorf("modern got %s via StateChange", r.Event)
				}
			}
			deps := e.a.Deprecations()
			if len(deps) != 1 || deps[0].Plugin != legacy || len(deps[0].Events) != 9 {
				t.Errorf("Deprecations() = %+v", deps)
			}
		})
	}
}

// checkContent: the pod and container a reference plugin got are the ones
// runLifecycle sent.
func checkContent(t *testing.T, r refRecord) {
	t.Helper()
	if r.Pod == "" {
		return
	}
	if r.PodName != "pod-"+r.Pod {
		t.Errorf("%s %s: pod %q named %q", r.Plugin, r.Event, r.Pod, r.PodName)
	}
	if r.Container != "" && (!strings.HasPrefix(r.Container, r.Pod+"-c") || r.CtrName != "ctr-"+r.Container) {
		t.Errorf("%s %s: container %q named %q of pod %q", r.Plugin, r.Event, r.Container, r.CtrName, r.Pod)
	}
}

func sortedIDs(ids ...string) []string {
	slices.Sort(ids)
	return ids
}

// TestInteropBigNodeSync: a reference-stub plugin synchronizes 10,000 pods
// and 50,000 containers, in several messages, with nrikit's default settings.
func TestInteropBigNodeSync(t *testing.T) {
	if raceEnabled {
		t.Skip("moving 120 MB under the race detector takes minutes; make test runs this test without -race (target bignode)")
	}
	pods, ctrs := fakenode.Node(10000, 5)
	e := newEnv(t)
	e.store.set(pods, ctrs)
	e.start()
	start := time.Now()
	e.refExternal("modern", "10", "big", "events=RunPodSandbox")
	e.waitPlugins("10-big")
	t.Logf("synchronized %d pods, %d containers (%d MB) in %v", len(pods), len(ctrs), fakenode.Size(pods, ctrs)>>20, time.Since(start))
	recs := e.refRecords("10-big")
	var sync *refRecord
	for i := range recs {
		if recs[i].Event == "Synchronize" {
			sync = &recs[i]
		}
	}
	if sync == nil || sync.Pods != 10000 || sync.Containers != 50000 {
		t.Fatalf("plugin's Synchronize record: %+v", sync)
	}
	// Every id, in order: the messages are encoded one after the other into
	// one reused buffer, which a reuse too early would corrupt.
	for i, p := range pods {
		if sync.PodIDs[i] != p.GetId() {
			t.Fatalf("pod %d of the snapshot arrived as %q, want %q", i, sync.PodIDs[i], p.GetId())
		}
	}
	for i, c := range ctrs {
		if sync.ContainerIDs[i] != c.GetId() {
			t.Fatalf("container %d of the snapshot arrived as %q, want %q", i, sync.ContainerIDs[i], c.GetId())
		}
	}
	if err := e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: testPod("after")}); err != nil {
		t.Fatal(err)
	}
}
