// SPDX-License-Identifier: Apache-2.0

package adaptation

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"go.uber.org/goleak"

	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
)

// Stop ends every wait at once, and leaves no goroutine behind.
func TestStopReturnsTheWaitersAtOnce(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	a, err := New("r", "v", nil, nil, WithDisabledExternalConnections(), WithPluginPath(""), WithLogger(logrus.NewEntry(quiet)),
		WithDefaultValidator(&validator.DefaultValidatorConfig{Enable: true, RequiredPlugins: []string{"gate"}}),
		WithPluginReadiness(ReadinessConfig{Wait: Duration(time.Minute)}))
	if err != nil {
		t.Fatal(err)
	}
	const waiters = 100
	entered := make(chan struct{}, waiters)
	a.readiness.waiting = func() { entered <- struct{}{} }
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	returned := make(chan error, waiters)
	for range waiters {
		go func() {
			returned <- a.AwaitPlugins(context.Background(), &api.PodSandbox{Namespace: "default", Name: "p"})
		}()
	}
	for range waiters {
		select {
		case <-entered:
		case <-time.After(20 * time.Second):
			t.Fatal("the pods did not all start waiting")
		}
	}
	stopped := time.Now()
	if err := a.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range waiters {
		select {
		case err := <-returned:
			if !errors.Is(err, ErrPluginsNotReady) {
				t.Errorf("AwaitPlugins at Stop: %v, want ErrPluginsNotReady", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("a waiter did not return at Stop")
		}
	}
	if took := time.Since(stopped); took > 100*time.Millisecond {
		t.Errorf("the waiters returned %v after Stop began, want within 100ms", took)
	}
}

// Beyond maxReadinessWaiters a pod meets the bound at once.
func TestWaitersAreBounded(t *testing.T) {
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	a, err := New("r", "v", nil, nil, WithDisabledExternalConnections(), WithPluginPath(""), WithLogger(logrus.NewEntry(quiet)),
		WithDefaultValidator(&validator.DefaultValidatorConfig{Enable: true, RequiredPlugins: []string{"gate"}}),
		WithPluginReadiness(ReadinessConfig{Wait: Duration(time.Minute)}))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer a.Stop(context.Background())
	a.readiness.mu.Lock()
	a.readiness.waiters = maxReadinessWaiters
	a.readiness.mu.Unlock()
	start := time.Now()
	err = a.AwaitPlugins(context.Background(), &api.PodSandbox{Namespace: "default", Name: "p"})
	if !errors.Is(err, ErrPluginsNotReady) || time.Since(start) > time.Second {
		t.Errorf("AwaitPlugins beyond the bound of waiters: %v after %v, want ErrPluginsNotReady at once", err, time.Since(start))
	}
}
