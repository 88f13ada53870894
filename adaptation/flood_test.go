// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// floodCalls is how many UpdateContainers calls the flooding plugin fires.
const floodCalls = 20_000

// lockingRuntime fakes a runtime like containerd or CRI-O: it holds its own
// mutex while it calls an event method, and its UpdateFn takes that mutex
// too. UpdateFn takes about a millisecond, or waits for hold to close
// (ignoring its context) when hold is set.
type lockingRuntime struct {
	mu      sync.Mutex
	hold    chan struct{}
	started atomic.Int64
	first   chan struct{} // closed once MaxPluginUpdatesInFlight calls started
	once    sync.Once
	extra   atomic.Value // the stack of a call beyond MaxPluginUpdatesInFlight, for a failing test
}

func newLockingRuntime(hold bool) *lockingRuntime {
	rt := &lockingRuntime{first: make(chan struct{})}
	if hold {
		rt.hold = make(chan struct{})
	}
	return rt
}

func (rt *lockingRuntime) update(_ context.Context, _ []*api.ContainerUpdate) ([]*api.ContainerUpdate, error) {
	n := rt.started.Add(1)
	if n >= adaptation.MaxPluginUpdatesInFlight {
		rt.once.Do(func() { close(rt.first) })
	}
	if n > adaptation.MaxPluginUpdatesInFlight && rt.hold != nil {
		rt.extra.CompareAndSwap(nil, string(debug.Stack()))
	}
	if rt.hold != nil {
		<-rt.hold // a runtime that ignores the context
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	time.Sleep(time.Millisecond) // the runtime's work, not a wait
	return nil, nil
}

func (rt *lockingRuntime) waitFirst(t *testing.T) {
	t.Helper()
	select {
	case <-rt.first:
	case <-time.After(waitLimit):
		t.Fatal("the flood never reached UpdateFn")
	}
}

// locked runs one event method as the runtime does: under its mutex.
func (rt *lockingRuntime) locked(t *testing.T, what string, call func() error) {
	t.Helper()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if err := call(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// podLifecycle is a pod with two containers, each event called under the
// runtime's mutex; it returns the events a subscriber to all must see.
func (rt *lockingRuntime) podLifecycle(t *testing.T, a *adaptation.Adaptation, id string) int {
	t.Helper()
	ctx := context.Background()
	pod := testPod(id)
	ctrs := []*api.Container{testContainer(id+"-c1", pod), testContainer(id+"-c2", pod)}
	rt.locked(t, "RunPodSandbox", func() error { return a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}) })
	for _, c := range ctrs {
		rt.locked(t, "CreateContainer", func() error {
			_, err := a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: c})
			return err
		})
		rt.locked(t, "StartContainer", func() error {
			return a.StartContainer(ctx, &api.StartContainerRequest{Pod: pod, Container: c})
		})
	}
	for _, c := range ctrs {
		rt.locked(t, "StopContainer", func() error {
			_, err := a.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: c})
			return err
		})
		rt.locked(t, "RemoveContainer", func() error {
			return a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: c})
		})
	}
	rt.locked(t, "StopPodSandbox", func() error { return a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}) })
	rt.locked(t, "RemovePodSandbox", func() error { return a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod}) })
	// CreateContainer also brings ValidateContainerAdjustment.
	return 1 + 2*3 + 2*2 + 2
}

// Frames that tell the flood's goroutines. ttrpc runs each request it takes
// on in a goroutine of its own (handlerFrame), which calls the runtime
// service (servingFrame), hands the answer to the connection's writer and
// exits. The call holds one of the MaxPendingPluginCalls places until that
// answer is written, so at most that many are in the service at once. Its
// goroutine, though, is gone only once it has been scheduled again after
// handing over the answer; on a loaded machine that can come after later
// calls took the place it freed, and their goroutines started. How many
// such exiting handlers there are at once depends on the scheduler, not on
// any bound of nrikit's.
const (
	handlerFrame = "ttrpc.(*serviceSet).handle.func1("
	servingFrame = "relay.(*runtimeService).UpdateContainers("
)

// Frames of the Go runtime's finalizer and cleanup goroutines. A dump of all
// stacks shows them while they run user code (closing the files,
// connections and processes that earlier tests left as garbage, which the
// flood's collections find), but runtime.NumGoroutine, which the bounds
// come from, never counts them; they are nobody's connection.
var runtimeFrames = []string{"runtime.runFinalizers(", "runtime.runCleanups("}

// floodSample is one look at the goroutines during the flood.
type floodSample struct {
	total    int // all goroutines in the dump
	handlers int // ttrpc handler goroutines, starting, serving or exiting
	runtime  int // the Go runtime's finalizer and cleanup goroutines
	serving  int // calls in the runtime service
	stacks   string
}

// others is the count that the flood must not raise beyond its
// connection's goroutines: everything but the ttrpc handlers and the Go
// runtime's own.
func (s floodSample) others() int { return s.total - s.handlers - s.runtime }

// classify counts the goroutines in a dump of all stacks, and the flood's
// among them.
func classify(stacks string) floodSample {
	s := floodSample{stacks: stacks}
	for _, g := range strings.Split(stacks, "\n\n") {
		s.total++
		if strings.Contains(g, handlerFrame) {
			s.handlers++
		}
		if strings.Contains(g, servingFrame) {
			s.serving++
		}
		if slices.ContainsFunc(runtimeFrames, func(f string) bool { return strings.Contains(g, f) }) {
			s.runtime++
		}
	}
	return s
}

// floodWatch samples the goroutines until stop is called. It looks at the
// stacks whenever the count is above quiet (the count with none of the
// flood's calls in flight), and every few milliseconds anyway. It returns
// the sample with the most goroutines other than ttrpc handlers and the Go
// runtime's, and the most seen at once in all, of handlers, of serving
// calls and of the Go runtime's goroutines.
func floodWatch(quiet int) (stop func() (peak floodSample, most floodSample)) {
	done := make(chan struct{})
	type result struct {
		peak floodSample
		floodSample
	}
	out := make(chan result)
	go func() {
		var r result
		buf := make([]byte, 1<<20)
		tick := time.NewTicker(200 * time.Microsecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-tick.C:
				n := runtime.NumGoroutine()
				r.total = max(r.total, n)
				if n <= quiet && i%25 != 0 {
					continue
				}
				s := classify(string(buf[:runtime.Stack(buf, true)]))
				r.handlers = max(r.handlers, s.handlers)
				r.serving = max(r.serving, s.serving)
				r.runtime = max(r.runtime, s.runtime)
				if s.others() > r.peak.others() {
					r.peak = s
				}
			case <-done:
				out <- r
				return
			}
		}
	}()
	return func() (floodSample, floodSample) {
		close(done)
		r := <-out
		return r.peak, r.floodSample
	}
}

// settledGoroutines waits until the goroutine count is at most want.
func settledGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for n := runtime.NumGoroutine(); n > want; n = runtime.NumGoroutine() {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, want at most %d:\n%s", n, want, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond) // polling a count, like goleak
	}
}

// quietCount is the goroutine count once transient ones have ended: the
// smallest of a few samples.
func quietCount() int {
	low := runtime.NumGoroutine()
	for i := 0; i < 50; i++ {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
		low = min(low, runtime.NumGoroutine())
	}
	return low
}

// TestFloodOfUpdateContainers: a plugin fires 20,000 UpdateContainers calls
// without waiting for replies while UpdateFn takes a millisecond under the
// runtime's mutex. At most MaxPendingPluginCalls of its calls are in the
// runtime service at once, and besides ttrpc's goroutine per call the
// runtime holds no more goroutines for it than for one plugin connection;
// a healthy plugin gets every event in time and stays connected, and once
// the flooder is gone the goroutines are back to where they were.
func TestFloodOfUpdateContainers(t *testing.T) {
	rt := newLockingRuntime(false)
	e := newEnv(t)
	e.store.onUpdate = rt.update
	e.preinstall("10", "healthy", testplugin.Config{})
	e.start()
	e.waitPlugins("10-healthy")
	base := quietCount()
	e.external("30", "quiet", testplugin.Config{Events: "updatepodsandbox"})
	e.waitPlugins("10-healthy", "30-quiet")
	withQuiet := quietCount()
	perConn := max(withQuiet-base, 0)
	// Besides its handlers, the flood adds the flooder's connection, like
	// the quiet one's, the goroutine that accepted it until the plugin has
	// joined (its handshake; it ends then, so perConn leaves it out), and
	// the watcher. The events run on the caller's goroutine (one validator:
	// no fan-out).
	quiet := withQuiet + perConn + 1 + 1

	watch := floodWatch(quiet)
	flooder := e.external("20", "flood", testplugin.Config{Events: "updatepodsandbox", Flood: &testplugin.Flood{Count: floodCalls}})
	e.waitPlugins("10-healthy", "20-flood", "30-quiet")
	rt.waitFirst(t) // the flood is being served
	const pods = 20
	want := 0
	for i := range pods {
		want += rt.podLifecycle(t, e.a, fmt.Sprintf("fl%d", i))
	}
	if err := flooder.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	e.waitPlugins("10-healthy", "30-quiet")
	peak, most := watch()

	if n := len(e.events("healthy")); n != want {
		t.Errorf("the healthy plugin got %d events, want %d", n, want)
	}
	for _, o := range []adaptation.Outcome{adaptation.OutcomeTimeout, adaptation.OutcomeLost, adaptation.OutcomeError} {
		for ev := api.Event_RUN_POD_SANDBOX; ev < api.Event_LAST; ev++ {
			if n := e.metrics.count("10-healthy", ev, o); n > 0 {
				t.Errorf("healthy plugin: %d × %s %s", n, ev.Name(), o)
			}
		}
	}
	t.Logf("goroutines: %d before the flood, at most %d in all, %d besides ttrpc handlers and the Go runtime's (bound %d), %d handlers, %d calls in the runtime service, %d finalizers or cleanups; UpdateFn calls %d of %d",
		withQuiet, most.total, peak.others(), quiet, most.handlers, most.serving, most.runtime, rt.started.Load(), floodCalls)
	if most.serving == 0 {
		t.Errorf("no call seen in %s: the stacks are not classified", servingFrame)
	}
	if most.serving > adaptation.MaxPendingPluginCalls {
		t.Errorf("%d of the flooder's calls in the runtime service at once, want at most %d", most.serving, adaptation.MaxPendingPluginCalls)
	}
	if peak.others() > quiet {
		t.Errorf("%d goroutines besides ttrpc handlers during the flood (%d in all), bound %d (base %d, one connection %d, its handshake, the watcher); at the peak:\n%s",
			peak.others(), peak.total, quiet, withQuiet, perConn, peak.stacks)
	}
	settledGoroutines(t, withQuiet)
}

// TestFloodReleasedOnDisconnect: with an UpdateFn that ignores its context
// and does not return, a flooding plugin that disconnects leaves nothing
// behind: the calls in UpdateFn are the only ones ever handed over, and once
// they return the goroutines are back to where they were.
func TestFloodReleasedOnDisconnect(t *testing.T) {
	rt := newLockingRuntime(true)
	e := newEnv(t)
	e.store.onUpdate = rt.update
	e.preinstall("10", "healthy", testplugin.Config{})
	e.start()
	e.waitPlugins("10-healthy")
	base := quietCount()

	flooder := e.external("20", "flood", testplugin.Config{Events: "updatepodsandbox", Flood: &testplugin.Flood{Count: floodCalls}})
	rt.waitFirst(t)
	// Its calls are served from its registration on, before it has joined;
	// it must have joined for its leaving to be seen below.
	e.waitPlugins("10-healthy", "20-flood")
	rt.podLifecycle(t, e.a, "held") // events flow while UpdateFn hangs
	if err := flooder.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	e.waitPlugins("10-healthy")
	close(rt.hold)
	settledGoroutines(t, base)
	if n := rt.started.Load(); n != adaptation.MaxPluginUpdatesInFlight {
		t.Errorf("UpdateFn was called %d times, want %d: calls queued behind a hung UpdateFn were handed over after the plugin left\n%v",
			n, adaptation.MaxPluginUpdatesInFlight, rt.extra.Load())
	}
}

// TestPluginCallsBeyondTheLimit: while the runtime's UpdateFn hangs, a
// plugin's calls beyond MaxPendingPluginCalls are answered at once with
// ResourceExhausted; the ones taken on complete once UpdateFn returns.
// Updates with values the kernel cannot take are refused with
// InvalidArgument naming the plugin and the field.
func TestPluginCallsBeyondTheLimit(t *testing.T) {
	rt := newLockingRuntime(true)
	e := newEnv(t)
	e.store.onUpdate = rt.update
	e.start()
	p, err := testplugin.Start(context.Background(), dialSocket(t, e.socket), e.plugin("20", "caller", testplugin.Config{Events: "updatepodsandbox"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	e.waitPlugins("20-caller")

	bad := []*api.ContainerUpdate{testplugin.Update{ContainerID: "c1", CPUShares: 1}.ContainerUpdate()}
	_, err = p.UpdateContainers(context.Background(), bad)
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "20-caller") || !strings.Contains(err.Error(), "cpu.shares") {
		t.Fatalf("UpdateContainers with CPU shares 1 = %v, want InvalidArgument naming 20-caller and cpu.shares", err)
	}

	const calls = 3 * adaptation.MaxPendingPluginCalls
	results := make(chan error, calls)
	for i := range calls {
		go func() {
			_, err := p.UpdateContainers(context.Background(), []*api.ContainerUpdate{
				testplugin.Update{ContainerID: "c1", CPUShares: uint64(2 + i)}.ContainerUpdate()})
			results <- err
		}()
	}
	deadline := time.After(waitLimit)
	for range calls - adaptation.MaxPendingPluginCalls {
		select {
		case err := <-results:
			if status.Code(err) != codes.ResourceExhausted {
				t.Fatalf("a call beyond the limit returned %v, want ResourceExhausted", err)
			}
		case <-deadline:
			t.Fatal("calls beyond the limit were not refused")
		}
	}
	close(rt.hold)
	for range adaptation.MaxPendingPluginCalls {
		select {
		case err := <-results:
			if err != nil {
				t.Fatalf("a call taken on failed: %v", err)
			}
		case <-deadline:
			t.Fatal("calls taken on did not complete")
		}
	}
	if n := rt.started.Load(); n != adaptation.MaxPendingPluginCalls {
		t.Errorf("UpdateFn called %d times, want %d", n, adaptation.MaxPendingPluginCalls)
	}
}
