// SPDX-License-Identifier: Apache-2.0

package readiness

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// The wait for a plugin that has not joined ends early enough to leave the
// runtime's setup (setup_reserve), the awaited plugin's own RunPodSandbox
// timeout and deadline_reserve: with 2 s to the caller's deadline, 300 ms
// of setup and a 1 s timeout, it ends at about 0.6 s.
func TestAwaitLeavesRoomForTheAwaitedPlugins(t *testing.T) {
	f := newFixture(t, time.Minute, func(c *Config) { c.SetupReserve = 300 * time.Millisecond })
	f.plugins.expected = time.Second
	f.Starting()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	err := f.Await(ctx, testPod("p"))
	took := time.Since(start)
	const why = "(the caller's deadline less 1.4s: setup_reserve 300ms, RunPodSandbox's plugins 1s (1s of them for the plugins awaited), deadline_reserve 100ms)"
	if !errors.Is(err, ErrPluginsNotReady) || !strings.Contains(err.Error(), why) {
		t.Errorf("Await: %v, want ErrPluginsNotReady saying %s", err, why)
	}
	if took < 500*time.Millisecond || took > 1200*time.Millisecond {
		t.Errorf("Await took %v, want about 0.6 s", took)
	}
}

// A required plugin that joins while the pod waits, but too late for what
// the pod then needs of its caller's deadline (its setup, the RunPodSandbox
// calls now that it is active, deadline_reserve), fails the pod at once
// with the gate's error; under "proceed" the pod goes on, with a warning.
func TestAwaitFailsAPluginThatJoinedTooLate(t *testing.T) {
	for _, proceed := range []bool{false, true} {
		f := newFixture(t, time.Minute, func(c *Config) {
			c.SetupReserve = 300 * time.Millisecond
			c.Proceed = proceed
		})
		entered := make(chan struct{}, 1)
		f.WatchWaiters(func() { entered <- struct{}{} })
		f.Starting()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- f.Await(ctx, testPod("p")) }()
		select {
		case <-entered:
		case <-time.After(waitLimit):
			t.Fatal("the pod did not wait")
		}
		// It joins with a 10 s timeout for RunPodSandbox: more than is left.
		f.plugins.mu.Lock()
		f.plugins.worstCase = 10 * time.Second
		f.plugins.mu.Unlock()
		start := time.Now()
		f.join(gateID)
		var err error
		select {
		case err = <-done:
		case <-time.After(waitLimit):
			t.Fatal("Await did not return once the plugin joined")
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("proceed %v: Await took %v after the join, want at once", proceed, took)
		}
		if proceed {
			if err != nil || len(f.warnings()) != 1 || !strings.Contains(f.warnings()[0].Message, "joined too late for its deadline") {
				t.Errorf("proceed: Await = %v, warnings %v; want nil and one warning", err, f.warnings())
			}
			continue
		}
		const want = `"gate" (10-gate) joined too late for this pod's deadline`
		if !errors.Is(err, ErrPluginsNotReady) || !strings.Contains(err.Error(), want) ||
			!strings.Contains(err.Error(), "which needs 10.4s: setup_reserve 300ms, RunPodSandbox's plugins 10s, deadline_reserve 100ms") {
			t.Errorf("Await = %v, want ErrPluginsNotReady saying %s and what the pod needs", err, want)
		}
	}
}
