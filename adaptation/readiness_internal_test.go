// SPDX-License-Identifier: Apache-2.0

package adaptation

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"go.uber.org/goleak"

	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/readiness"
)

// WatchReadinessWaiters has fn called as each pod starts waiting in
// AwaitPlugins, for the tests outside the package; call it before Start.
func WatchReadinessWaiters(a *Adaptation, fn func()) { a.relay.Readiness().WatchWaiters(fn) }

// Stop ends every wait at once, and leaves no goroutine behind. The 100 ms
// run from Stop's start to the last waiter's return, each waiter noting
// when it returned: what Stop does after it ended the waits (shutting
// plugins down, waiting for its goroutines) is not counted.
func TestStopReturnsTheWaitersAtOnce(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	a := newGated(t)
	const waiters = 100
	entered := make(chan struct{}, waiters)
	a.relay.Readiness().WatchWaiters(func() { entered <- struct{}{} })
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	type result struct {
		err error
		at  time.Time
	}
	returned := make(chan result, waiters)
	for range waiters {
		go func() {
			err := a.AwaitPlugins(context.Background(), &api.PodSandbox{Namespace: "default", Name: "p"})
			returned <- result{err, time.Now()}
		}()
	}
	for range waiters {
		select {
		case <-entered:
		case <-time.After(20 * time.Second):
			t.Fatal("the pods did not all start waiting")
		}
	}
	stopping := time.Now()
	stopped := make(chan error, 1)
	go func() { stopped <- a.Stop(context.Background()) }()
	var last time.Time
	for range waiters {
		select {
		case r := <-returned:
			if !errors.Is(r.err, ErrPluginsNotReady) {
				t.Errorf("AwaitPlugins at Stop: %v, want ErrPluginsNotReady", r.err)
			}
			if r.at.After(last) {
				last = r.at
			}
		case <-time.After(20 * time.Second):
			t.Fatal("a waiter did not return at Stop")
		}
	}
	if took := last.Sub(stopping); took > 100*time.Millisecond {
		t.Errorf("the last waiter returned %v after Stop began, want within 100ms", took)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
}

// readinessChangesAdaptation is an adaptation that requires no plugin, so
// that it flips ready at Start and not ready at Stop, telling fn.
func readinessChangesAdaptation(t *testing.T, fn func(Readiness)) *Adaptation {
	t.Helper()
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	a, err := New("r", "v", nil, nil, WithDisabledExternalConnections(), WithPluginPath(""), WithLogger(logrus.NewEntry(quiet)),
		WithDefaultValidator(&validator.DefaultValidatorConfig{Enable: true}), WithReadinessChanges(fn))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Stop waits for the runtime's callback that tells its flip to not ready:
// once Stop returned, the callback never runs again and no goroutine of
// nrikit's is left.
func TestStopWaitsForTheReadinessCallback(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	entered, release := make(chan struct{}), make(chan struct{})
	var returned atomic.Bool
	a := readinessChangesAdaptation(t, func(r Readiness) {
		if r.Ready {
			return
		}
		close(entered)
		<-release
		returned.Store(true)
	})
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- a.Stop(context.Background()) }()
	select {
	case <-entered:
	case <-time.After(20 * time.Second):
		t.Fatal("Stop's flip to not ready was not delivered")
	}
	select {
	case err := <-stopped:
		t.Fatalf("Stop returned (%v) while the runtime's callback ran", err)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("Stop: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Stop did not return once the callback did")
	}
	if !returned.Load() {
		t.Error("Stop returned before the callback did")
	}
}

// A callback that blocks does not hold Stop past its context and grace:
// Stop returns ErrStopAbandoned naming it, and the goroutine ends once the
// callback returns.
func TestStopGivesUpOnABlockedReadinessCallback(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	release := make(chan struct{})
	a := readinessChangesAdaptation(t, func(r Readiness) {
		if !r.Ready {
			<-release
		}
	})
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	const timeout = 500 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	err := a.Stop(ctx)
	took := time.Since(start)
	close(release)
	if !errors.Is(err, ErrStopAbandoned) || !strings.Contains(err.Error(), "ReadinessChanges callback") {
		t.Errorf("Stop with the callback blocked: %v, want ErrStopAbandoned naming the callback", err)
	}
	if limit := timeout + time.Second + 5*time.Second; took > limit { // its context, its grace of a second, a margin
		t.Errorf("Stop took %v, want within its context, its grace and a margin (%v)", took, limit)
	}
}

// newGated is a quiet adaptation with no plugins whose pods wait up to a
// minute for the required plugin "gate".
func newGated(t *testing.T) *Adaptation {
	t.Helper()
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	a, err := New("r", "v", nil, nil, WithDisabledExternalConnections(), WithPluginPath(""), WithLogger(logrus.NewEntry(quiet)),
		WithDefaultValidator(&validator.DefaultValidatorConfig{Enable: true, RequiredPlugins: []string{"gate"}}),
		WithPluginReadiness(ReadinessConfig{Wait: Duration(time.Minute)}))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The public MissingState constants keep their literal values, the
// tracker's; ErrPluginsNotReady is the tracker's error, and a missing
// plugin's story has one text.
func TestReadinessFormsAreTheTrackers(t *testing.T) {
	for public, internal := range map[MissingState]readiness.MissingState{
		MissingNeverConnected: readiness.NeverConnected,
		MissingLeft:           readiness.Left,
		MissingFailed:         readiness.Failed,
		MissingSyncBackoff:    readiness.SyncBackoff,
		MissingSynchronizing:  readiness.Synchronizing,
		MissingNotStarted:     readiness.NotStarted,
		missingNoAnswer:       readiness.NoAnswer,
	} {
		if string(public) != string(internal) {
			t.Errorf("MissingState %q, the tracker's %q", public, internal)
		}
	}
	if ErrPluginsNotReady != readiness.ErrPluginsNotReady {
		t.Error("ErrPluginsNotReady is not the tracker's")
	}
	at := time.Date(2026, 1, 2, 10, 4, 5, 0, time.UTC)
	m := MissingPlugin{Name: "foo", State: MissingLeft, Plugin: "10-foo", Reason: "connection lost", Time: at}
	if got, want := m.String(), `"foo" (10-foo) left at 10:04:05: connection lost`; got != want {
		t.Errorf("MissingPlugin.String() = %q, want %q", got, want)
	}
	s := readiness.State{Ready: false, Since: at, Required: []string{"foo"}, Proceeded: 3,
		Missing: []readiness.Missing{{Name: "foo", State: readiness.SyncBackoff, Plugin: "10-foo", Phase: "synchronize", Reason: "r", Time: at, BackoffUntil: at.Add(time.Minute)}}}
	r := readinessOf(s)
	want := Readiness{Ready: false, Since: at, Required: []string{"foo"}, Proceeded: 3,
		Missing: []MissingPlugin{{Name: "foo", State: MissingSyncBackoff, Plugin: "10-foo", Phase: "synchronize", Reason: "r", Time: at, BackoffUntil: at.Add(time.Minute)}}}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("readinessOf(%+v) = %+v, want %+v", s, r, want)
	}
	if got := r.Missing[0].internal(); got != s.Missing[0] {
		t.Errorf("MissingPlugin.internal() = %+v, want %+v", got, s.Missing[0])
	}
}
