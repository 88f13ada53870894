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
func (r *Relay) Stop(ctx context.Context) error {
	r.mu.Lock()
	if !r.started {
		r.mu.Unlock()
		return nil
	}
	r.started = false
	r.readiness.Stopping()
	cancel, l := r.cancel, r.listener
	r.listener = nil
	r.mu.Unlock()

	cancel()
	r.updateCalls.stop()
	if l != nil {
		_ = l.Close()
	}
	if r.cfg.Endpoint != nil {
		r.cfg.Endpoint.Close()
	}
	if _, ok := ctx.Deadline(); !ok {
		var done context.CancelFunc
		ctx, done = context.WithTimeout(ctx, DefaultShutdownGrace)
		defer done()
	}
	r.shutdownAll(ctx, r.registry.drain(), nri.ReasonRuntimeStopping)
	err := r.waitForStop(ctx)
	r.cfg.Metrics.PluginCount(0)
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
func (r *Relay) waitForStop(ctx context.Context) error {
	const lockHint = " has not returned (does it wait for a lock held by Stop's caller?)"
	handshakes, updates, flips := make(chan error, 1), make(chan error, 1), make(chan error, 1)
	go func() { handshakes <- waitOrGiveUp(ctx, &r.wg, "the runtime's SyncFn"+lockHint) }()
	go func() { updates <- waitOrGiveUp(ctx, &r.updateCalls.wg, "the runtime's UpdateFn"+lockHint) }()
	go func() {
		flips <- waitOrGiveUp(ctx, r.readiness.Deliveries(), "the runtime's ReadinessChanges callback"+lockHint)
	}()
	return errors.Join(<-handshakes, <-updates, <-flips)
}

func (r *Relay) shutdownAll(ctx context.Context, plugins []*plugin, reason string) {
	var wg sync.WaitGroup
	for _, p := range plugins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.drainQueue(ctx, p)
			r.forget(p)
			p.shutdown(ctx, reason, r.cfg.Request)
			r.reportLeft(p, "", reason)
		}()
	}
	wg.Wait()
}
