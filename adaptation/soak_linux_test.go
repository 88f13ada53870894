// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// The soak runs only when NRIKIT_SOAK is set (make soak). SOAK_LIFECYCLES
// sets the number of pod lifecycles: the default, 2,000, takes about two
// minutes on a loaded 2-core machine; the 10,000 take about ten.
const (
	soakEnv            = "NRIKIT_SOAK"
	soakLifecyclesEnv  = "SOAK_LIFECYCLES"
	soakDefault        = 2_000
	soakCheckpoint     = 1_000 // the first measurement, after warming up
	soakWorkers        = 2
	soakRequestTimeout = time.Second
	// Tolerated growth from the checkpoint to the end: a leak of one
	// goroutine per 225 lifecycles, or 2 KiB of heap per lifecycle, over
	// 9,000 lifecycles goes beyond them (over the default 1,000, one
	// goroutine per 25 lifecycles, 16 KiB of heap per lifecycle).
	soakGoroutineGrowth = 40
	soakHeapGrowth      = 16 << 20
	soakRSSGrowth       = 48 << 20
	// soakRecords is the container records' cap, and soakResidents the
	// containers of soakResidentPod, alive from before the workers start to
	// after they end, each lifecycle replacing the oldest with a new one:
	// more live containers than the cap all along, so that records are
	// evicted, oldest live first, all along.
	soakRecords     = 256
	soakResidents   = 300
	soakResidentPod = "soak-resident"
)

// soakChaosEvents are what the misbehaving plugin takes: not
// ValidateContainerAdjustment, where a timeout fails the creation by design.
const soakChaosEvents = "runpodsandbox,stoppodsandbox,removepodsandbox,createcontainer,postcreatecontainer," +
	"startcontainer,poststartcontainer,stopcontainer,removecontainer"

// soakChaos: per call; errors only where they cannot fail the operation.
var soakChaos = testplugin.Chaos{
	Fail: 0.005, Hang: 0.00006, Exit: 0.00006,
	FailEvents: "stoppodsandbox,removepodsandbox,postcreatecontainer,poststartcontainer,stopcontainer,removecontainer",
}

// TestSoak drives pod lifecycles (two containers each) through two healthy
// plugins and one that errors, hangs and exits at random and is restarted,
// while an attacker process loops through hostile connections. It fails on
// any event a healthy plugin lost, got twice or out of order, on growth of
// goroutines, heap or RSS from the checkpoint to the end beyond the stated
// tolerance, and on any runtime call that took longer than its bound.
func TestSoak(t *testing.T) {
	if os.Getenv(soakEnv) == "" {
		t.Skip("set " + soakEnv + "=1 (make soak) to run the soak")
	}
	lifecycles := soakDefault
	if s := os.Getenv(soakLifecyclesEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= soakCheckpoint {
			t.Fatalf("%s=%q: want a number above %d", soakLifecyclesEnv, s, soakCheckpoint)
		}
		lifecycles = n
	}
	rt := newLockingRuntime(false)
	logs := &levelCounter{counts: map[logrus.Level]int{}}
	// ttrpc logs through the standard logger: count its lines too, without
	// printing the hundreds of thousands an attacker provokes.
	std := &levelCounter{counts: map[logrus.Level]int{}}
	restore := std.capture(logrus.StandardLogger())
	defer restore()
	e := newEnv(t, adaptation.WithRequestTimeout(soakRequestTimeout), adaptation.WithRegistrationTimeout(time.Second),
		adaptation.WithLogger(logs.logger()), adaptation.WithContainerRecords(soakRecords))
	e.store.onUpdate = rt.update
	e.preinstall("10", "alpha", testplugin.Config{})
	e.preinstall("30", "gamma", testplugin.Config{})
	e.start()
	e.waitPlugins("10-alpha", "30-gamma")

	stopChaos := superviseChaos(t, e)
	stopAttack := startAttacker(t, e)
	e.waitPluginsInclude("10-alpha", "20-chaos", "30-gamma")

	s := &soakStats{max: map[string]time.Duration{}, a: e.a}
	s.createResidents(t, rt, e.a)
	start := time.Now()
	var checkpoint soakSample
	next := atomic.Int64{}
	var wg sync.WaitGroup
	var cpOnce sync.Once
	cpReached := make(chan struct{})
	cpDone := make(chan struct{})
	for range soakWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(lifecycles) {
					return
				}
				if i == soakCheckpoint+1 {
					cpOnce.Do(func() { close(cpReached) })
				}
				if i > soakCheckpoint {
					<-cpDone
				}
				if err := s.lifecycle(rt, e.a, fmt.Sprintf("soak%d", i)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	go func() {
		<-cpReached
		checkpoint = sample()
		close(cpDone)
	}()
	wg.Wait()
	cpOnce.Do(func() { close(cpReached) })
	<-cpDone
	elapsed := time.Since(start)
	final := sample()
	attacks := stopAttack()
	restarts := stopChaos()

	t.Logf("soak: %d lifecycles (2 containers each) in %v, %d runtime calls, %d chaos plugin instances, attacker rounds: %s",
		lifecycles, elapsed.Round(time.Millisecond), s.calls.Load(), restarts, attacks)
	t.Logf("soak: runtime log lines: %s; ttrpc (standard logger): %s", logs, std)
	t.Logf("soak: at lifecycle %d: %v", soakCheckpoint, checkpoint)
	t.Logf("soak: at lifecycle %d: %v", lifecycles, final)
	bound := 4*soakRequestTimeout + time.Second
	s.report(t, bound)
	checkGrowth(t, checkpoint, final)
	s.removeResidents(t, rt, e.a)
	s.checkRecords(t)
	checkHealthyRecords(t, e, lifecycles)
	if active := pluginIDs(e.a); !slices.Contains(active, "10-alpha") || !slices.Contains(active, "30-gamma") {
		t.Errorf("a healthy plugin was dropped: active %v", active)
	}
}

// soakStats times every runtime call.
type soakStats struct {
	calls atomic.Int64
	mu    sync.Mutex
	max   map[string]time.Duration
	a     *adaptation.Adaptation
	// The container records kept, as Status counts them after each
	// creation: the most seen, how often at the cap, creations without a
	// record of their own.
	maxRecords, atCap, unrecorded int
	// residents are the resident containers, oldest first; resident names
	// the next one.
	residents []*api.Container
	resident  int
}

// createResidents creates soakResidents containers in soakResidentPod,
// through the plugins, as the runtime would.
func (s *soakStats) createResidents(t *testing.T, rt *lockingRuntime, a *adaptation.Adaptation) {
	pod := testPod(soakResidentPod)
	if err := s.call(rt, "RunPodSandbox", func() error {
		return a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: pod})
	}); err != nil {
		t.Fatal(err)
	}
	for range soakResidents {
		if err := s.call(rt, "CreateContainer", func() error { return s.addResident(a) }); err != nil {
			t.Fatalf("resident container: %v", err)
		}
	}
}

// addResident creates the next resident container; rotateResident removes
// the oldest and adds one. Their callers hold the runtime's lock.
func (s *soakStats) addResident(a *adaptation.Adaptation) error {
	pod := testPod(soakResidentPod)
	s.mu.Lock()
	c := testContainer(fmt.Sprintf("%s-c%d", soakResidentPod, s.resident), pod)
	s.resident++
	s.mu.Unlock()
	if _, err := a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: c}); err != nil {
		return fmt.Errorf("resident container %s: %w", c.GetId(), err)
	}
	s.countRecords(c.GetId())
	s.mu.Lock()
	s.residents = append(s.residents, c)
	s.mu.Unlock()
	return nil
}

func (s *soakStats) rotateResident(a *adaptation.Adaptation) error {
	s.mu.Lock()
	c := s.residents[0]
	s.residents = s.residents[1:]
	s.mu.Unlock()
	req := &api.RemoveContainerRequest{Pod: testPod(soakResidentPod), Container: c}
	if err := a.RemoveContainer(context.Background(), req); err != nil {
		return fmt.Errorf("resident container %s: %w", c.GetId(), err)
	}
	return s.addResident(a)
}

// removeResidents removes the resident containers and their pod.
func (s *soakStats) removeResidents(t *testing.T, rt *lockingRuntime, a *adaptation.Adaptation) {
	ctx := context.Background()
	pod := testPod(soakResidentPod)
	for _, c := range s.residents {
		if err := s.call(rt, "RemoveContainer", func() error {
			return a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: c})
		}); err != nil {
			t.Errorf("resident container %s: %v", c.GetId(), err)
		}
	}
	if err := s.call(rt, "RemovePodSandbox", func() error { return a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod}) }); err != nil {
		t.Error(err)
	}
}

// countRecords checks the records after container id was created. Its
// caller holds the runtime's lock, which every runtime call takes: no
// other creation can evict id's record before it is looked up, and a new
// record, the newest live one, is the last a creation evicts.
func (s *soakStats) countRecords(id string) {
	_, ok := s.a.ContainerRecord(id)
	n := s.a.Status().ContainerRecords
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxRecords = max(s.maxRecords, n)
	if n == soakRecords {
		s.atCap++
	}
	if !ok {
		s.unrecorded++
	}
}

func (s *soakStats) checkRecords(t *testing.T) {
	t.Logf("soak: container records: at most %d kept (cap %d), at the cap after %d creations, %d creations unrecorded",
		s.maxRecords, soakRecords, s.atCap, s.unrecorded)
	if s.maxRecords > soakRecords || s.atCap == 0 || s.unrecorded > 0 {
		t.Errorf("soak: container records went beyond their cap %d, never reached it, or missed a creation", soakRecords)
	}
	if n := s.a.Status().ContainerRecords; n != 0 {
		t.Errorf("soak: %d container records left after every container was removed", n)
	}
}

func (s *soakStats) call(rt *lockingRuntime, name string, fn func() error) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	start := time.Now()
	err := fn()
	took := time.Since(start)
	s.calls.Add(1)
	s.mu.Lock()
	s.max[name] = max(s.max[name], took)
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func (s *soakStats) report(t *testing.T, bound time.Duration) {
	names := make([]string, 0, len(s.max))
	for n := range s.max {
		names = append(names, n)
	}
	slices.Sort(names)
	line := ""
	for _, n := range names {
		line += fmt.Sprintf(" %s=%v", n, s.max[n].Round(time.Microsecond))
		if s.max[n] > bound {
			t.Errorf("soak: a %s call took %v, beyond its bound %v", n, s.max[n], bound)
		}
	}
	t.Logf("soak: slowest runtime call of each kind (bound %v):%s", bound, line)
}

// soakEvents is what a healthy plugin must see of one lifecycle, in order.
func soakEvents(pod string) []string {
	out := []string{"RunPodSandbox:"}
	for _, c := range []string{pod + "-c1", pod + "-c2"} {
		for _, ev := range []string{"CreateContainer", "ValidateContainerAdjustment", "PostCreateContainer", "StartContainer", "PostStartContainer"} {
			out = append(out, ev+":"+c)
		}
	}
	for _, c := range []string{pod + "-c1", pod + "-c2"} {
		out = append(out, "StopContainer:"+c, "RemoveContainer:"+c)
	}
	return append(out, "StopPodSandbox:", "RemovePodSandbox:")
}

// soakStep is one runtime call of a lifecycle.
type soakStep struct {
	name string
	fn   func() error
}

func (s *soakStats) lifecycle(rt *lockingRuntime, a *adaptation.Adaptation, id string) error {
	ctx := context.Background()
	pod := testPod(id)
	ctrs := []*api.Container{testContainer(id+"-c1", pod), testContainer(id+"-c2", pod)}
	steps := []soakStep{{"RunPodSandbox", func() error { return a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}) }}}
	for _, c := range ctrs {
		steps = append(steps,
			soakStep{"CreateContainer", func() error {
				_, err := a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: c})
				if err == nil {
					s.countRecords(c.GetId())
				}
				return err
			}},
			soakStep{"PostCreateContainer", func() error {
				return a.PostCreateContainer(ctx, &api.PostCreateContainerRequest{Pod: pod, Container: c})
			}},
			soakStep{"StartContainer", func() error { return a.StartContainer(ctx, &api.StartContainerRequest{Pod: pod, Container: c}) }},
			soakStep{"PostStartContainer", func() error {
				return a.PostStartContainer(ctx, &api.PostStartContainerRequest{Pod: pod, Container: c})
			}},
		)
	}
	for _, c := range ctrs {
		steps = append(steps,
			soakStep{"StopContainer", func() error {
				_, err := a.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: c})
				return err
			}},
			soakStep{"RemoveContainer", func() error { return a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: c}) }},
		)
	}
	steps = append(steps,
		soakStep{"RotateResident", func() error { return s.rotateResident(a) }},
		soakStep{"StopPodSandbox", func() error { return a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}) }},
		soakStep{"RemovePodSandbox", func() error { return a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod}) }},
	)
	for _, st := range steps {
		if err := s.call(rt, st.name, st.fn); err != nil {
			return fmt.Errorf("pod %s: %w", id, err)
		}
	}
	return nil
}

// checkHealthyRecords compares, per pod, what each healthy plugin logged with
// soakEvents: nothing lost, nothing twice, nothing out of order.
func checkHealthyRecords(t *testing.T, e *env, lifecycles int) {
	records := e.records()
	for _, name := range []string{"alpha", "gamma"} {
		byPod := map[string][]string{}
		pids := map[int]bool{}
		for _, r := range testplugin.Of(records, name) {
			switch r.Event {
			case "Configure", "Synchronize", "Shutdown":
				continue
			}
			pids[r.PID] = true
			byPod[r.Pod] = append(byPod[r.Pod], r.Event+":"+r.Container)
		}
		bad := 0
		for i := 1; i <= lifecycles; i++ {
			pod := fmt.Sprintf("soak%d", i)
			if got, want := byPod[pod], soakEvents(pod); !slices.Equal(got, want) {
				if bad++; bad <= 3 {
					t.Errorf("soak: plugin %s, pod %s: got %v, want %v", name, pod, got, want)
				}
			}
			delete(byPod, pod)
		}
		delete(byPod, soakResidentPod) // created before, removed after the lifecycles checked
		if len(byPod) > 0 {
			t.Errorf("soak: plugin %s got events of %d unknown pods", name, len(byPod))
		}
		if len(pids) != 1 {
			t.Errorf("soak: plugin %s ran as %d processes, want 1", name, len(pids))
		}
		t.Logf("soak: plugin %s: %d pods with a wrong record, %d events checked", name, bad, lifecycles*len(soakEvents("x")))
	}
}

// soakSample is one measurement of the runtime's process.
type soakSample struct {
	goroutines int
	heap       uint64
	rss        uint64
}

func (s soakSample) String() string {
	return fmt.Sprintf("goroutines %d, heap %.1f MiB, RSS %.1f MiB", s.goroutines, mib(s.heap), mib(s.rss))
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

func sample() soakSample {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return soakSample{goroutines: quietCount(), heap: ms.HeapAlloc, rss: rss()}
}

// rss reads the resident set size from /proc/self/statm.
func rss() uint64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, resident uint64
	if _, err := fmt.Sscan(string(data), &size, &resident); err != nil {
		return 0
	}
	return resident * uint64(os.Getpagesize())
}

func checkGrowth(t *testing.T, from, to soakSample) {
	t.Logf("soak: growth: goroutines %+d (tolerance %d), heap %+.1f MiB (tolerance %.0f), RSS %+.1f MiB (tolerance %.0f)",
		to.goroutines-from.goroutines, soakGoroutineGrowth, mib(to.heap)-mib(from.heap), mib(soakHeapGrowth),
		mib(to.rss)-mib(from.rss), mib(soakRSSGrowth))
	if to.goroutines > from.goroutines+soakGoroutineGrowth {
		t.Errorf("soak: goroutines grew from %d to %d", from.goroutines, to.goroutines)
	}
	if to.heap > from.heap+soakHeapGrowth {
		t.Errorf("soak: heap grew from %.1f to %.1f MiB", mib(from.heap), mib(to.heap))
	}
	if to.rss > from.rss+soakRSSGrowth {
		t.Errorf("soak: RSS grew from %.1f to %.1f MiB", mib(from.rss), mib(to.rss))
	}
}

// superviseChaos keeps a misbehaving plugin connected: whenever its process
// ends (it exited, or the runtime dropped it), a new one is started. stop
// ends it and returns how many instances ran.
func superviseChaos(t *testing.T, e *env) (stop func() int) {
	ctx, cancel := context.WithCancel(context.Background())
	cfg := e.plugin("20", "chaos", testplugin.Config{Events: soakChaosEvents, Chaos: &soakChaos})
	cfg.LogPath = "" // its records prove nothing and would only slow the check
	done := make(chan int)
	go func() {
		instances := 0
		for ctx.Err() == nil {
			path := filepath.Join(e.dir, fmt.Sprintf("chaos-%d.json", instances))
			cmd, err := testplugin.StartExternal(ctx, cfg, path)
			if err != nil {
				break
			}
			instances++
			_ = cmd.Wait()
		}
		done <- instances
	}()
	return func() int { cancel(); return <-done }
}

// startAttacker runs the attacker process; stop ends it and returns its
// summary.
func startAttacker(t *testing.T, e *env) (stop func() string) {
	cfg := e.plugin("00", "attacker", testplugin.Config{Attack: true})
	cmd, err := testplugin.StartExternal(context.Background(), cfg, filepath.Join(e.dir, "attacker.json"))
	if err != nil {
		t.Fatal(err)
	}
	return func() string {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("attacker: %v (output in %s)", err, filepath.Join(e.dir, "attacker.json.out"))
		}
		for _, r := range testplugin.Find(e.records(), "attacker", testplugin.AttackEvent) {
			return r.Reason
		}
		return "(no summary)"
	}
}

// levelCounter counts the runtime's log lines by level and keeps none: the
// test harness's hook would keep every line of the soak in memory.
type levelCounter struct {
	mu     sync.Mutex
	counts map[logrus.Level]int
}

func (c *levelCounter) logger() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(io.Discard)
	l.SetLevel(logrus.InfoLevel)
	l.AddHook(c)
	return logrus.NewEntry(l)
}

func (c *levelCounter) Levels() []logrus.Level { return logrus.AllLevels }

func (c *levelCounter) Fire(e *logrus.Entry) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts[e.Level]++
	return nil
}

func (c *levelCounter) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprintf("error %d, warning %d, info %d", c.counts[logrus.ErrorLevel], c.counts[logrus.WarnLevel], c.counts[logrus.InfoLevel])
}

// capture sends l's lines to c only, until restore.
func (c *levelCounter) capture(l *logrus.Logger) (restore func()) {
	out, hooks := l.Out, l.ReplaceHooks(logrus.LevelHooks{})
	l.SetOutput(io.Discard)
	l.AddHook(c)
	return func() {
		l.SetOutput(out)
		l.ReplaceHooks(hooks)
	}
}
