// SPDX-License-Identifier: Apache-2.0

// A barrier: shared holders run together, an exclusive one alone, and neither starves the other.

package syncx

import (
	"context"
	"sync"
	"time"

	"github.com/nrikit/nrikit/internal/wake"
)

// Barrier keeps shared holders (event fan-outs) and exclusive ones (plugin
// synchronizations) apart: any number of shared holders run together, an
// exclusive one runs alone; in what follows, a fan-out is a shared holder
// and a synchronization an exclusive one. A waiting
// synchronization holds back new fan-outs, so that a steady flow of events
// cannot starve it; the fan-outs it held back go before the next
// synchronization, so that plugins joining together cannot starve events.
// Unlike a sync.RWMutex, a fan-out may give up waiting when its caller's
// context ends.
type Barrier struct {
	mu           sync.Mutex
	events       int         // fan-outs in progress
	held         int         // fan-outs waiting because of a synchronization
	syncing      bool        // a synchronization runs, or waits for fan-outs to end
	syncsWaiting int         // synchronizations waiting for their turn
	changed      wake.Signal // whenever any of the above changes
	leave        func()      // leaveEvent, bound once rather than per event
}

// EnterShared waits until no synchronization runs or waits, or until ctx
// ends; it returns the release on success.
func (b *Barrier) EnterShared(ctx context.Context) (release func(), err error) {
	return b.EnterSharedUntil(ctx, time.Time{})
}

// EnterSharedUntil is EnterShared that also gives up at deadline, with
// context.DeadlineExceeded; the zero time is none. Unlike a context with
// that deadline, it costs a timer only when it has to wait.
func (b *Barrier) EnterSharedUntil(ctx context.Context, deadline time.Time) (release func(), err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.syncing {
		b.held++
		b.changed.Broadcast()
		defer b.unhold()
	}
	var expired <-chan time.Time
	for b.syncing {
		if expired == nil && !deadline.IsZero() {
			t := time.NewTimer(time.Until(deadline))
			defer t.Stop()
			expired = t.C
		}
		if err := b.waitUntil(ctx, expired); err != nil {
			return nil, err
		}
	}
	b.events++
	if b.leave == nil {
		b.leave = b.leaveEvent
	}
	return b.leave, nil
}

// unhold counts a held-back fan-out out. Called with mu held.
func (b *Barrier) unhold() {
	b.held--
	b.changed.Broadcast()
}

func (b *Barrier) leaveEvent() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.events--
	b.changed.Broadcast()
}

// EnterExclusive waits for its turn, after the fan-outs that an earlier
// synchronization held back, then until no fan-out runs. It does not give
// up: its users bound their fan-outs (by their plugins' timeouts).
func (b *Barrier) EnterExclusive() (release func()) {
	release, _ = b.EnterExclusiveCtx(context.Background())
	return release
}

// EnterExclusiveCtx is EnterExclusive that gives up when ctx ends, leaving
// the barrier as if it had never asked.
func (b *Barrier) EnterExclusiveCtx(ctx context.Context) (release func(), err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.syncsWaiting++
	b.changed.Broadcast()
	for b.syncing || b.held > 0 {
		if !b.wait(ctx) {
			b.syncsWaiting--
			b.changed.Broadcast()
			return nil, context.Cause(ctx)
		}
	}
	b.syncsWaiting--
	b.syncing = true
	b.changed.Broadcast()
	for b.events > 0 {
		if !b.wait(ctx) {
			b.syncing = false
			b.changed.Broadcast()
			return nil, context.Cause(ctx)
		}
	}
	return b.leaveSync, nil
}

func (b *Barrier) leaveSync() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.syncing = false
	b.changed.Broadcast()
}

// wait waits for the next change, with mu held on entry and on return; it
// reports false if ctx ended first.
func (b *Barrier) wait(ctx context.Context) bool { return b.waitUntil(ctx, nil) == nil }

// waitUntil is wait that also ends when expired fires; it returns why it
// ended before the change.
func (b *Barrier) waitUntil(ctx context.Context, expired <-chan time.Time) error {
	ch := b.changed.Wait()
	b.mu.Unlock()
	defer b.mu.Lock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-expired:
		return context.DeadlineExceeded
	}
}

// BarrierState is a snapshot of a Barrier, for tests of its users.
type BarrierState struct {
	Shared    int  // shared holders in
	Held      int  // shared holders waiting because of an exclusive one
	Exclusive bool // an exclusive holder is in, or waits for shared ones to leave
	Waiting   int  // exclusive holders waiting for their turn
}

// State returns b's state now, and a channel closed at its next change.
func (b *Barrier) State() (BarrierState, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return BarrierState{Shared: b.events, Held: b.held, Exclusive: b.syncing, Waiting: b.syncsWaiting}, b.changed.Wait()
}
