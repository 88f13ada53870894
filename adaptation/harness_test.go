// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"
	"go.uber.org/goleak"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/interoptest"
	"github.com/nrikit/nrikit/internal/testplugin"
)

func TestMain(m *testing.M) {
	testplugin.MaybeRunChild()
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		interoptest.Cleanup()
		os.Exit(code)
	}))
}

// waitLimit bounds every wait of a test; it is generous for a loaded 2-core
// CI machine and only ever reached when something is broken.
const waitLimit = 20 * time.Second

// env is one runtime under test with its own socket, plugin and config
// directories, event log and log capture.
type env struct {
	t         testing.TB
	dir       string
	socket    string
	pluginDir string
	confDir   string
	logPath   string
	hook      *logtest.Hook
	logSignal *signalHook
	metrics   *recordingMetrics
	store     *store
	a         *adaptation.Adaptation
}

func newEnv(t testing.TB, opts ...adaptation.Option) *env {
	t.Helper()
	dir, err := os.MkdirTemp("", "nrk") // short: unix socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return newEnvIn(t, dir, opts...)
}

// newEnvAt makes a second runtime sharing probe's directories and event log,
// for options (such as built-in plugins) that need those paths up front.
func newEnvAt(t testing.TB, probe *env, opts ...adaptation.Option) *env {
	t.Helper()
	return newEnvIn(t, probe.dir, opts...)
}

func newEnvIn(t testing.TB, dir string, opts ...adaptation.Option) *env {
	t.Helper()
	var err error
	e := &env{
		t:         t,
		dir:       dir,
		socket:    filepath.Join(dir, "run", "nri.sock"),
		pluginDir: filepath.Join(dir, "plugins"),
		confDir:   filepath.Join(dir, "conf.d"),
		logPath:   filepath.Join(dir, "events.log"),
		metrics:   newRecordingMetrics(),
		store:     &store{},
	}
	for _, d := range []string{e.pluginDir, e.confDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	logger := logrus.New()
	logger.SetOutput(io.Discard)
	logger.SetLevel(logrus.DebugLevel)
	e.hook = logtest.NewLocal(logger)
	e.logSignal = &signalHook{notify: make(chan struct{})}
	logger.AddHook(e.logSignal)
	base := []adaptation.Option{
		adaptation.WithSocketPath(e.socket),
		adaptation.WithPluginPath(e.pluginDir),
		adaptation.WithPluginConfigPath(e.confDir),
		adaptation.WithLogger(logrus.NewEntry(logger)),
		adaptation.WithMetrics(e.metrics),
	}
	e.a, err = adaptation.New("nritest-runtime", "v1.0.0", e.store.sync, e.store.update, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.stop)
	return e
}

func (e *env) start() {
	e.t.Helper()
	if err := e.a.Start(context.Background()); err != nil {
		e.t.Fatalf("Start: %v", err)
	}
}

func (e *env) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := e.a.Stop(ctx); err != nil {
		e.t.Errorf("Stop: %v", err)
	}
}

// plugin fills in what every test plugin of this env shares.
func (e *env) plugin(idx, name string, cfg testplugin.Config) testplugin.Config {
	cfg.Index, cfg.Name = idx, name
	cfg.LogPath = e.logPath
	cfg.SocketPath = e.socket
	return cfg
}

// preinstall puts a test plugin into the plugin directory.
func (e *env) preinstall(idx, name string, cfg testplugin.Config) {
	e.t.Helper()
	path, err := testplugin.WriteConfig(e.dir, e.plugin(idx, name, cfg))
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := testplugin.WriteLauncher(e.pluginDir, idx, name, path); err != nil {
		e.t.Fatal(err)
	}
}

// external starts a test plugin process that connects to the socket; the
// runtime is stopped before the process is reaped.
func (e *env) external(idx, name string, cfg testplugin.Config) *exec.Cmd {
	e.t.Helper()
	cmd, _ := e.externalExits(idx, name, cfg)
	return cmd
}

// externalExits is external, with a channel closed when the process exits.
func (e *env) externalExits(idx, name string, cfg testplugin.Config) (*exec.Cmd, <-chan struct{}) {
	e.t.Helper()
	path, err := testplugin.WriteConfig(e.dir, e.plugin(idx, name, cfg))
	if err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd, err := testplugin.StartExternal(ctx, e.plugin(idx, name, cfg), path)
	if err != nil {
		cancel()
		e.t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	e.t.Cleanup(func() {
		e.stop()
		select {
		case <-exited:
		case <-time.After(waitLimit):
			e.t.Errorf("plugin %s-%s did not exit after the runtime stopped", idx, name)
		}
		cancel()
		<-exited
	})
	return cmd, exited
}

// waitPlugins waits until exactly the given plugins are active, in order.
func (e *env) waitPlugins(ids ...string) {
	e.t.Helper()
	deadline := time.After(waitLimit)
	for {
		changed := e.metrics.changed()
		if got := pluginIDs(e.a); equal(got, ids) {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			e.dumpLog()
			e.t.Fatalf("active plugins: got %v, want %v", pluginIDs(e.a), ids)
		}
	}
}

// waitPluginsInclude waits until the given plugins are among the active ones.
func (e *env) waitPluginsInclude(ids ...string) {
	e.t.Helper()
	deadline := time.After(waitLimit)
	for {
		changed := e.metrics.changed()
		active := pluginIDs(e.a)
		missing := false
		for _, id := range ids {
			if !slices.Contains(active, id) {
				missing = true
			}
		}
		if !missing {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			e.dumpLog()
			e.t.Fatalf("active plugins %v, want to include %v", active, ids)
		}
	}
}

func pluginIDs(a *adaptation.Adaptation) []string {
	var ids []string
	for _, p := range a.Plugins() {
		ids = append(ids, p.Plugin)
	}
	return ids
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (e *env) records() []testplugin.Record {
	e.t.Helper()
	recs, err := testplugin.ReadLog(e.logPath)
	if err != nil && !os.IsNotExist(err) {
		e.t.Fatal(err)
	}
	return recs
}

// events lists what one plugin (by name) received, leaving out the handshake.
func (e *env) events(name string) []string {
	var out []string
	for _, ev := range testplugin.Events(e.records(), name) {
		switch ev {
		case "Configure", "Synchronize", "Shutdown":
			continue
		}
		out = append(out, ev)
	}
	return out
}

// logged finds log entries with the given fields.
func (e *env) logged(fields logrus.Fields) []*logrus.Entry {
	var out []*logrus.Entry
next:
	for _, entry := range e.hook.AllEntries() {
		for k, v := range fields {
			if entry.Data[k] != v {
				continue next
			}
		}
		out = append(out, entry)
	}
	return out
}

// store is the runtime's own state, listed by SyncFn.
type store struct {
	mu       sync.Mutex
	listPods func() []*api.PodSandbox                       // overrides pods when set
	syncWith func(context.Context, adaptation.SyncCB) error // replaces sync when set
	// afterCallback, when set, runs once the sync callback returned, while
	// the plugin has not joined yet.
	afterCallback func()
	// runtime, when set, replaces this store as SyncFn and UpdateFn.
	runtime interface {
		sync(context.Context, adaptation.SyncCB) error
		update(context.Context, []*api.ContainerUpdate) ([]*api.ContainerUpdate, error)
	}
	pods     []*api.PodSandbox
	ctrs     []*api.Container
	updates  [][]*api.ContainerUpdate
	onUpdate adaptation.UpdateFn // replaces update when set before Start
}

func (s *store) sync(ctx context.Context, cb adaptation.SyncCB) error {
	if s.runtime != nil {
		return s.runtime.sync(ctx, cb)
	}
	s.mu.Lock()
	pods, ctrs, list, syncWith, after := s.pods, s.ctrs, s.listPods, s.syncWith, s.afterCallback
	s.mu.Unlock()
	if syncWith != nil {
		return syncWith(ctx, cb)
	}
	if list != nil {
		pods = list()
	}
	_, err := cb(ctx, pods, ctrs)
	if after != nil {
		after()
	}
	return err
}

func (s *store) update(ctx context.Context, u []*api.ContainerUpdate) ([]*api.ContainerUpdate, error) {
	if s.runtime != nil {
		return s.runtime.update(ctx, u)
	}
	if s.onUpdate != nil {
		return s.onUpdate(ctx, u)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.updates = append(s.updates, u)
	return nil, nil
}

// recordingMetrics counts plugin calls and signals every change of the
// plugin count.
type recordingMetrics struct {
	mu       sync.Mutex
	outcomes map[string]int // "plugin/event/outcome"
	notify   chan struct{}
	noCounts bool // set by quiet
}

func newRecordingMetrics() *recordingMetrics {
	return &recordingMetrics{outcomes: map[string]int{}, notify: make(chan struct{})}
}

// quiet stops counting calls, so that benchmarks measure the event path
// without this recorder's work on it. Call it before the runtime starts.
func (m *recordingMetrics) quiet() { m.noCounts = true }

func (m *recordingMetrics) PluginInvoked(plugin string, ev api.Event, o adaptation.Outcome, _ time.Duration) {
	if m.noCounts {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.outcomes[plugin+"/"+ev.Name()+"/"+string(o)]++
}

func (m *recordingMetrics) AdjustmentsReturned(string, api.Event, int, int, int) {}

func (m *recordingMetrics) PluginCount(int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	close(m.notify)
	m.notify = make(chan struct{})
}

func (m *recordingMetrics) changed() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.notify
}

func (m *recordingMetrics) count(plugin string, ev api.Event, o adaptation.Outcome) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.outcomes[plugin+"/"+ev.Name()+"/"+string(o)]
}

// ---- a pod with two containers ----

func testPod(id string) *api.PodSandbox {
	return &api.PodSandbox{Id: id, Name: "pod-" + id, Uid: "uid-" + id, Namespace: "default",
		Labels: map[string]string{"app": "demo"}}
}

func testContainer(id string, pod *api.PodSandbox) *api.Container {
	return &api.Container{Id: id, PodSandboxId: pod.GetId(), Name: "ctr-" + id,
		State: api.ContainerState_CONTAINER_CREATED, Args: []string{"/bin/app"}, Env: []string{"A=1"}}
}

// fullLifecycleEvents is what a plugin subscribed to everything sees for a
// pod with containers c1 and c2 driven by runLifecycle.
var fullLifecycleEvents = []string{
	"RunPodSandbox",
	"CreateContainer", "ValidateContainerAdjustment", "PostCreateContainer", "StartContainer", "PostStartContainer",
	"CreateContainer", "ValidateContainerAdjustment", "PostCreateContainer", "StartContainer", "PostStartContainer",
	"UpdateContainer", "PostUpdateContainer", "UpdatePodSandbox", "PostUpdatePodSandbox",
	"StopContainer", "RemoveContainer", "StopContainer", "RemoveContainer",
	"StopPodSandbox", "RemovePodSandbox",
}

// runLifecycle drives one pod with two containers through every event and
// returns the CreateContainer responses.
func runLifecycle(t *testing.T, a *adaptation.Adaptation, podID string) []*api.CreateContainerResponse {
	t.Helper()
	return runLifecycleOf(t, a, testPod(podID))
}

// runLifecycleOf is runLifecycle of pod.
func runLifecycleOf(t *testing.T, a *adaptation.Adaptation, pod *api.PodSandbox) []*api.CreateContainerResponse {
	t.Helper()
	ctx := context.Background()
	podID := pod.GetId()
	ctrs := []*api.Container{testContainer(podID+"-c1", pod), testContainer(podID+"-c2", pod)}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}))
	var created []*api.CreateContainerResponse
	for _, c := range ctrs {
		rsp, err := a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: c})
		must(err)
		created = append(created, rsp)
		must(a.PostCreateContainer(ctx, &api.PostCreateContainerRequest{Pod: pod, Container: c}))
		must(a.StartContainer(ctx, &api.StartContainerRequest{Pod: pod, Container: c}))
		must(a.PostStartContainer(ctx, &api.PostStartContainerRequest{Pod: pod, Container: c}))
	}
	res := &api.LinuxResources{Cpu: &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 512}}}
	_, err := a.UpdateContainer(ctx, &api.UpdateContainerRequest{Pod: pod, Container: ctrs[0], LinuxResources: res})
	must(err)
	must(a.PostUpdateContainer(ctx, &api.PostUpdateContainerRequest{Pod: pod, Container: ctrs[0]}))
	_, err = a.UpdatePodSandbox(ctx, &api.UpdatePodSandboxRequest{Pod: pod, LinuxResources: res})
	must(err)
	must(a.PostUpdatePodSandbox(ctx, &api.PostUpdatePodSandboxRequest{Pod: pod}))
	for _, c := range ctrs {
		_, err := a.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: c})
		must(err)
		must(a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: c}))
	}
	must(a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}))
	must(a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod}))
	return created
}

// signalHook wakes waiters on every log line.
type signalHook struct {
	mu     sync.Mutex
	notify chan struct{}
}

func (h *signalHook) Levels() []logrus.Level { return logrus.AllLevels }

func (h *signalHook) Fire(*logrus.Entry) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.notify)
	h.notify = make(chan struct{})
	return nil
}

func (h *signalHook) changed() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.notify
}

// waitLogged waits for a log line with the given fields.
func (e *env) waitLogged(fields logrus.Fields) []*logrus.Entry {
	e.t.Helper()
	return e.waitLoggedLine("", fields)
}

// waitLoggedMessage waits for a log line with the given message.
func (e *env) waitLoggedMessage(msg string) []*logrus.Entry {
	e.t.Helper()
	return e.waitLoggedLine(msg, nil)
}

// waitLoggedLine waits for log lines with the given message, any if empty,
// and fields.
func (e *env) waitLoggedLine(msg string, fields logrus.Fields) []*logrus.Entry {
	e.t.Helper()
	return e.waitLoggedWhere(fmt.Sprintf("%q with %v", msg, fields), func(en *logrus.Entry) bool {
		return msg == "" || en.Message == msg
	}, fields)
}

// waitLoggedWhere waits for log lines with the given fields for which
// match holds; what describes them in the failure.
func (e *env) waitLoggedWhere(what string, match func(*logrus.Entry) bool, fields logrus.Fields) []*logrus.Entry {
	e.t.Helper()
	deadline := time.After(waitLimit)
	for {
		changed := e.logSignal.changed()
		var found []*logrus.Entry
		for _, en := range e.logged(fields) {
			if match(en) {
				found = append(found, en)
			}
		}
		if len(found) > 0 {
			return found
		}
		select {
		case <-changed:
		case <-deadline:
			e.dumpLog()
			e.t.Fatalf("no log line %s", what)
		}
	}
}

func dialSocket(t *testing.T, path string) net.Conn {
	t.Helper()
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

func symlinkOrFail(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// dumpLog shows the runtime's log in a failing test's output.
func (e *env) dumpLog() {
	for _, en := range e.hook.AllEntries() {
		e.t.Logf("%s %s %v", en.Level, en.Message, en.Data)
	}
}
