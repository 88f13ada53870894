// SPDX-License-Identifier: Apache-2.0

// Stop and its steps: shutting every plugin down and waiting, within a grace, for handshakes,
// UpdateFn calls and readiness callbacks.

package relay

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/syncx"
)

// Stop tells every plugin to shut down, giving each the request timeout to
// acknowledge, then closes its connection; adaptation.Adaptation.Stop
// documents the waits and ErrStopAbandoned. Start may be called again.
func (a *Relay) Stop(ctx context.Context) error {
	a.mu.Lock()
	if !a.started {
		a.mu.Unlock()
		return nil
	}
	a.started = false
	a.readiness.Stopping()
	cancel, l := a.cancel, a.listener
	a.listener = nil
	a.mu.Unlock()

	cancel()
	a.updateCalls.stop()
	if l != nil {
		_ = l.Close()
	}
	if a.cfg.Endpoint != nil {
		a.cfg.Endpoint.Close()
	}
	if _, ok := ctx.Deadline(); !ok {
		var done context.CancelFunc
		ctx, done = context.WithTimeout(ctx, DefaultShutdownGrace)
		defer done()
	}
	a.shutdownAll(ctx, a.registry.drain(), nri.ReasonRuntimeStopping)
	err := a.waitForStop(ctx)
	a.cfg.Metrics.PluginCount(0)
	return err
}

// DefaultShutdownGrace bounds Stop when its context has no deadline.
const DefaultShutdownGrace = 5 * time.Second

// closingGrace is how long Stop still waits after its context ended, for
// goroutines that only finish closing connections it has just closed.
const closingGrace = time.Second

// waitOrGiveUp waits for Stop's goroutines (handshakes, watchers) to end, up
// to ctx's end and closingGrace after it. What can outlast that is a
// handshake inside the runtime's SyncFn, which nrikit cannot interrupt: its
// context is cancelled, so once SyncFn returns, the plugin fails its sync
// and is dropped without joining.
func waitOrGiveUp(ctx context.Context, wg *sync.WaitGroup, why string) error {
	if syncx.WaitOrGiveUp(ctx, wg, closingGrace) {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrStopAbandoned, why)
}

// waitForStop waits, within ctx and its grace, for the goroutines of the
// handshakes and watchers, for the UpdateFn calls in progress and for the
// delivery of Readiness flips to the runtime's callback.
func (a *Relay) waitForStop(ctx context.Context) error {
	const lockHint = " has not returned (does it wait for a lock held by Stop's caller?)"
	handshakes, updates, flips := make(chan error, 1), make(chan error, 1), make(chan error, 1)
	go func() { handshakes <- waitOrGiveUp(ctx, &a.wg, "the runtime's SyncFn"+lockHint) }()
	go func() { updates <- waitOrGiveUp(ctx, &a.updateCalls.wg, "the runtime's UpdateFn"+lockHint) }()
	go func() {
		flips <- waitOrGiveUp(ctx, a.readiness.Deliveries(), "the runtime's ReadinessChanges callback"+lockHint)
	}()
	return errors.Join(<-handshakes, <-updates, <-flips)
}

func (a *Relay) shutdownAll(ctx context.Context, plugins []*plugin, reason string) {
	var wg sync.WaitGroup
	for _, p := range plugins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.forget(p)
			p.shutdown(ctx, reason, a.cfg.Request)
			a.reportLeft(p, "", reason)
		}()
	}
	wg.Wait()
}
