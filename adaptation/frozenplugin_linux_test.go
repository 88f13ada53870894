// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"go.uber.org/goleak"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/interoptest"
)

// A plugin that stops reading its socket (stopped by a debugger or a frozen
// cgroup, stuck in a loop, or hostile) must not hold the runtime's call: the
// write of the request is bounded by the call's deadline like the wait for
// the answer. These tests stall plugins in every way a peer can, with
// requests of every size, and check that each call returns within the
// request timeout plus frozenMargin.

const (
	// frozenTimeout is the request timeout: long enough for a healthy
	// plugin to take a 4 MiB request on a loaded machine.
	frozenTimeout = 2 * time.Second
	// frozenMargin is generous for a loaded two-core machine; a call that
	// waits for a stalled peer to read never returns at all.
	frozenMargin = 4 * time.Second

	smallRequest = 0       // a pod without filler: about 200 bytes
	oneMiB       = 1 << 20 // a pod with a 1 MiB annotation
	// nearLimit stays under ttrpc's 4 MiB message limit with the rest of
	// the pod.
	nearLimit = 4<<20 - 64<<10
)

// eventClass is what a test sends to the stalled plugin: a setup event
// (RunPodSandbox), a teardown event (StopPodSandbox) or a validation
// (CreateContainer, the stalled plugin validating).
type eventClass int

const (
	setupEvent eventClass = iota + 1
	teardownEvent
	validationEvent
)

func (c eventClass) String() string {
	return map[eventClass]string{setupEvent: "setup", teardownEvent: "teardown", validationEvent: "validation"}[c]
}

// subscription is the one event the stalled plugin takes.
func (c eventClass) subscription() api.Event {
	return map[eventClass]api.Event{setupEvent: api.Event_RUN_POD_SANDBOX,
		teardownEvent: api.Event_STOP_POD_SANDBOX, validationEvent: api.Event_VALIDATE_CONTAINER_ADJUSTMENT}[c]
}

// stalledRun drives events to a runtime with a stalled plugin and, after
// it, a healthy reference plugin, and keeps the list of events the healthy
// one must have had.
type stalledRun struct {
	t    *testing.T
	e    *env
	size int
	sent []string
	pod  *api.PodSandbox // the validation case's pod
	n    int
}

// fillerPod is a pod carrying an annotation of size bytes.
func fillerPod(id string, size int) *api.PodSandbox {
	pod := testPod(id)
	if size > 0 {
		pod.Annotations = map[string]string{"frozen.nrikit.io/filler": strings.Repeat("f", size)}
	}
	return pod
}

// next sends one event of class c that reaches the stalled plugin, within
// the bound, and returns the error of the runtime's call for it.
func (r *stalledRun) next(c eventClass) error {
	r.t.Helper()
	r.n++
	ctx := context.Background()
	id := fmt.Sprintf("p%d", r.n)
	switch c {
	case setupEvent:
		r.sent = append(r.sent, "RunPodSandbox")
		return returnsInTime(r.t, "RunPodSandbox", func() error {
			return r.e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: fillerPod(id, r.size)})
		})
	case teardownEvent:
		pod := fillerPod(id, r.size)
		must(r.t, r.e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}))
		r.sent = append(r.sent, "RunPodSandbox", "StopPodSandbox")
		return returnsInTime(r.t, "StopPodSandbox", func() error {
			return r.e.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod})
		})
	}
	if r.pod == nil {
		r.pod = fillerPod("vp", r.size)
		must(r.t, r.e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: r.pod}))
		r.sent = append(r.sent, "RunPodSandbox")
	}
	r.sent = append(r.sent, "CreateContainer", "ValidateContainerAdjustment")
	return returnsInTime(r.t, "CreateContainer", func() error {
		_, err := r.e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: r.pod, Container: testContainer(id, r.pod)})
		return err
	})
}

// returnsInTime runs a runtime call that reaches a stalled plugin and fails
// the test unless it returns within the request timeout plus frozenMargin.
func returnsInTime(t *testing.T, what string, call func() error) error {
	t.Helper()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- call() }()
	select {
	case err := <-done:
		return err
	case <-time.After(frozenTimeout + frozenMargin):
		t.Fatalf("%s still blocked %v after it began, with a request timeout of %v", what, time.Since(start), frozenTimeout)
		return nil
	}
}

// wantStallFailure checks the error of the call that met the stalled plugin:
// a validation always fails, a setup event as its policy says, a teardown
// event never.
func wantStallFailure(t *testing.T, c eventClass, policy *api.FailurePolicy, plugin string, err error) {
	t.Helper()
	fails := c == validationEvent || c == setupEvent && policy.GetFailRequest()
	switch {
	case fails && err == nil:
		t.Errorf("the %s event succeeded although the stalled plugin %s did not take it", c, plugin)
	case fails && !strings.Contains(err.Error(), plugin):
		t.Errorf("the %s event failed with %q, which does not name plugin %s", c, err, plugin)
	case !fails && err != nil:
		t.Errorf("the %s event failed: %v; the policy says it goes on without the stalled plugin", c, err)
	}
}

// noLeaks checks, when the test and its cleanups are done, that no
// goroutine and no file descriptor the test made is left.
func noLeaks(t *testing.T) {
	t.Helper()
	interoptest.Binary(t, "modern") // built once, before the count starts
	current := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, current) })
	checkFDs(t)
}

type stallCase struct {
	rev     string
	reading peerReading
	size    int
	class   eventClass
	policy  *api.FailurePolicy
}

func (c stallCase) String() string {
	size := map[int]string{smallRequest: "small", oneMiB: "1MiB", nearLimit: "near-4MiB"}[c.size]
	policy := "default-policy"
	if c.policy != nil {
		policy = strings.ReplaceAll(strings.TrimSpace(fmt.Sprintf("fail=%t keep=%t", c.policy.FailRequest, c.policy.KeepConnected)), " ", ",")
	}
	return strings.Join([]string{c.rev, c.reading.String(), size, c.class.String(), policy}, "/")
}

var (
	keepAndFail = &api.FailurePolicy{FailRequest: true, KeepConnected: true}
	keepOnly    = &api.FailurePolicy{KeepConnected: true}
)

// TestStalledPeerCallsReturnByDeadline: a plugin in the test process that
// stops reading its socket after registering, on either revision, reading
// nothing, a byte every 5 ms, or only peeking while it answers (so that
// small requests pile up unread), for requests from small to near the 4
// MiB limit, in setup, teardown and validation events. Every call returns
// within the timeout plus a margin; a plugin whose request the deadline cut
// short is dropped even if its policy keeps plugins that time out; the
// healthy plugin after it gets every event; nothing is left behind.
func TestStalledPeerCallsReturnByDeadline(t *testing.T) {
	cases := []stallCase{
		{"v1alpha1", readsNothing, oneMiB, setupEvent, nil},
		{"v1beta1", readsByteByByte, nearLimit, setupEvent, keepAndFail},
		{"v1alpha1", readsByteByByte, oneMiB, teardownEvent, keepOnly},
		{"v1beta1", readsNothing, nearLimit, teardownEvent, nil},
		{"v1alpha1", readsNothing, nearLimit, validationEvent, nil},
		{"v1beta1", readsByteByByte, oneMiB, validationEvent, keepOnly},
		{"v1alpha1", hoards, smallRequest, setupEvent, keepOnly},
		{"v1beta1", hoards, smallRequest, setupEvent, keepAndFail},
		{"v1beta1", hoards, smallRequest, teardownEvent, nil},
		{"v1alpha1", hoards, smallRequest, validationEvent, keepOnly},
	}
	for _, c := range cases {
		t.Run(c.String(), func(t *testing.T) { stalledPeer(t, c) })
	}
}

func stalledPeer(t *testing.T, c stallCase) {
	noLeaks(t)
	// The runtime's default policy is the case's too: a v1beta1 plugin
	// cannot declare its own.
	e := newEnv(t, adaptation.WithRequestTimeout(frozenTimeout),
		adaptation.WithDefaultFailurePolicy(adaptation.FailurePolicy{FailRequest: c.policy.GetFailRequest(), KeepConnected: c.policy.GetKeepConnected()}))
	e.start()
	peer := dialStallingPeer(t, e.socket, c.rev, c.reading, "05", "stalled", api.MustParseEventMask(c.class.subscription().Name()), c.policy)
	e.refExternal("modern", "50", "healthy")
	e.waitPlugins("05-stalled", "50-healthy")
	if got := e.a.Plugins()[0]; got.Revision != c.rev || got.FailurePolicy.KeepConnected != c.policy.GetKeepConnected() {
		t.Fatalf("stalled plugin joined as %+v", got)
	}
	peer.stall(t)

	r := &stalledRun{t: t, e: e, size: c.size}
	var err error
	// Small requests are written in time until enough of them pile up
	// unread; a hoarding peer answers them meanwhile.
	const mostRequests = 5000
	for range mostRequests {
		if err = r.next(c.class); !slices.Contains(pluginIDs(e.a), "05-stalled") {
			break
		}
		if c.reading != hoards {
			t.Fatalf("plugin kept after the %s event's request to it was cut short (err %v); plugins: %v", c.class, err, pluginIDs(e.a))
		}
		if err != nil {
			t.Fatalf("%s event %d failed while the hoarding plugin still answered: %v", c.class, r.n, err)
		}
	}
	if slices.Contains(pluginIDs(e.a), "05-stalled") {
		t.Fatalf("plugin still kept after %d %s events it never read", mostRequests, c.class)
	}
	wantStallFailure(t, c.class, c.policy, "05-stalled", err)
	if c.class == setupEvent && err != nil {
		r.sent = r.sent[:len(r.sent)-1] // a setup event failed at the stalled plugin ends there
	}
	if c.reading == hoards && r.n < 10 {
		t.Errorf("only %d small requests were sent before the plugin was dropped; the socket holds far more", r.n)
	}

	// The event goes on to the healthy plugin, and so does the next one,
	// at once now that the stalled plugin is gone.
	r.size = smallRequest
	if err := r.next(setupEvent); err != nil {
		t.Errorf("RunPodSandbox after the stalled plugin was dropped: %v", err)
	}
	e.waitPlugins("50-healthy")
	e.stop()
	if got := e.refEvents("50-healthy"); !slices.Equal(got, r.sent) {
		t.Errorf("healthy plugin got\n%v\nwant\n%v", got, r.sent)
	}
}

// TestKeptPluginThatTookItsRequest: a reference plugin frozen by SIGSTOP
// whose small request the socket took in full only times out waiting for
// its answer, and its keep_connected policy keeps it.
func TestKeptPluginThatTookItsRequest(t *testing.T) {
	noLeaks(t)
	e := newEnv(t, adaptation.WithRequestTimeout(frozenTimeout))
	e.start()
	e.refExternal("modern", "05", "frozen", "events=RunPodSandbox", "failure_policy=keep_connected")
	freeze(t, e, "05-frozen")
	r := &stalledRun{t: t, e: e, size: smallRequest}
	if err := r.next(setupEvent); err != nil {
		t.Errorf("RunPodSandbox: %v", err)
	}
	e.waitPlugins("05-frozen")
	if n := e.metrics.count("05-frozen", api.Event_RUN_POD_SANDBOX, adaptation.OutcomeTimeout); n != 1 {
		t.Errorf("%d timeouts of RunPodSandbox counted, want 1", n)
	}
}

// freeze stops the process of plugin id with SIGSTOP once it has joined,
// and lets it go on at cleanup, before the cleanup that waits for it to
// exit.
func freeze(t *testing.T, e *env, id string) {
	t.Helper()
	e.waitPluginsInclude(id)
	pid := 0
	for _, p := range e.a.Plugins() {
		if p.Plugin == id {
			pid = p.PID
		}
	}
	if pid <= 0 {
		t.Fatalf("no pid for %s", id)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	// kill returns before every thread of the process has stopped; one
	// still running could answer the next request.
	stopped := make(chan error, 1)
	go func() { stopped <- waitStopped(pid) }()
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("waiting for plugin %s to stop: %v", id, err)
		}
	case <-time.After(waitLimit):
		t.Fatalf("plugin %s did not stop", id)
	}
}

// waitStopped waits until the child process pid has stopped, leaving the
// report for other waiters (waitid with WSTOPPED|WNOWAIT).
func waitStopped(pid int) error {
	const pPID, wStopped, wNoWait = 1, 2, 0x1000000
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), wStopped|wNoWait, 0, 0)
		if errno != syscall.EINTR {
			if errno != 0 {
				return errno
			}
			return nil
		}
	}
}

// TestFrozenReferencePluginCallsReturnByDeadline: an unmodified
// reference-stub plugin process stopped by SIGSTOP, sent a setup event
// with a 1 MiB annotation, a teardown event near the 4 MiB limit, or a
// validation of 1 MiB: each call returns within the request timeout plus a
// margin, the plugin is dropped, the healthy plugin after it gets every
// event.
func TestFrozenReferencePluginCallsReturnByDeadline(t *testing.T) {
	cases := []struct {
		class eventClass
		size  int
	}{{setupEvent, oneMiB}, {teardownEvent, nearLimit}, {validationEvent, oneMiB}}
	for _, c := range cases {
		t.Run(c.class.String(), func(t *testing.T) {
			noLeaks(t)
			e := newEnv(t, adaptation.WithRequestTimeout(frozenTimeout))
			e.start()
			e.refExternal("modern", "50", "healthy")
			e.refExternal("modern", "05", "frozen", "events="+c.class.subscription().Name())
			e.waitPlugins("05-frozen", "50-healthy")
			freeze(t, e, "05-frozen")

			r := &stalledRun{t: t, e: e, size: c.size}
			err := r.next(c.class)
			if ids := pluginIDs(e.a); !slices.Equal(ids, []string{"50-healthy"}) {
				t.Fatalf("plugins after the frozen one's request was cut short: %v", ids)
			}
			wantStallFailure(t, c.class, nil, "05-frozen", err)
			r.size = smallRequest
			must(t, r.next(setupEvent))
			e.stop()
			if got := e.refEvents("50-healthy"); !slices.Equal(got, r.sent) {
				t.Errorf("healthy plugin got\n%v\nwant\n%v", got, r.sent)
			}
		})
	}
}

// TestStopWithFrozenPlugin: Stop returns within its context plus a margin
// while a launched reference plugin is frozen with a near-4 MiB request
// stuck in its socket, under a request timeout longer than Stop's wait; the
// call that was writing returns too, and the process is killed.
func TestStopWithFrozenPlugin(t *testing.T) {
	noLeaks(t)
	e := newEnv(t, adaptation.WithRequestTimeout(time.Minute))
	e.refPreinstall("modern", "05", "frozen", "events=RunPodSandbox")
	e.start()
	freeze(t, e, "05-frozen")

	call := make(chan error, 1)
	go func() {
		call <- e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: fillerPod("big", nearLimit)})
	}()
	const grace = time.Second
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	stopped := make(chan error, 1)
	start := time.Now()
	go func() { stopped <- e.a.Stop(ctx) }()
	select {
	case err := <-stopped:
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Stop: %v", err)
		}
	case <-time.After(grace + frozenMargin):
		t.Fatalf("Stop still blocked %v after it began, with %v to stop in", time.Since(start), grace)
	}
	select {
	case <-call:
	case <-time.After(frozenMargin):
		t.Fatal("RunPodSandbox to the frozen plugin still blocked after Stop returned")
	}
}

// TestCallerDeadlineCutsShortAStalledWrite: when the runtime's caller has
// less time than the request timeout, a request write to a plugin that
// stopped reading ends at the event's deadline (the caller's, less the
// deadline reserve): for a plugin whose failure fails the request, the call
// fails with the caller's context error and blames no plugin, but the
// plugin, whose connection the cut left in the middle of a message, is
// dropped even with keep_connected.
func TestCallerDeadlineCutsShortAStalledWrite(t *testing.T) {
	for _, rev := range []string{"v1alpha1", "v1beta1"} {
		t.Run(rev, func(t *testing.T) {
			noLeaks(t)
			e := newEnv(t, adaptation.WithRequestTimeout(time.Minute),
				adaptation.WithDefaultFailurePolicy(adaptation.FailurePolicy{KeepConnected: true}),
				adaptation.WithPluginSettings("05-stalled", adaptation.PluginSettings{
					FailurePolicy: &adaptation.FailurePolicy{FailRequest: true, KeepConnected: true}}))
			e.start()
			peer := dialStallingPeer(t, e.socket, rev, readsNothing, "05", "stalled",
				api.MustParseEventMask("RunPodSandbox"), keepOnly)
			e.waitPlugins("05-stalled")
			peer.stall(t)

			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			err := returnsInTime(t, "RunPodSandbox", func() error {
				return e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: fillerPod("big", oneMiB)})
			})
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("RunPodSandbox = %v, want the caller's deadline", err)
			}
			var perr *adaptation.PluginError
			if errors.As(err, &perr) {
				t.Errorf("the caller's deadline was blamed on plugin %s: %v", perr.Plugin, err)
			}
			if ids := pluginIDs(e.a); len(ids) != 0 {
				t.Errorf("plugins after a request to one was cut short: %v", ids)
			}
		})
	}
}
