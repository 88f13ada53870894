// A barrier: shared holders run together, an exclusive one alone, and neither starves the other.

package adaptation

import (
	"context"
	"sync"

	"github.com/nrikit/nrikit/internal/wake"
)

// barrier keeps event fan-outs and plugin synchronizations apart: any
// number of fan-outs run together, a synchronization runs alone. A waiting
// synchronization holds back new fan-outs, so that a steady flow of events
// cannot starve it; the fan-outs it held back go before the next
// synchronization, so that plugins joining together cannot starve events.
// Unlike a sync.RWMutex, a fan-out may give up waiting when its caller's
// context ends.
type barrier struct {
	mu           sync.Mutex
	events       int         // fan-outs in progress
	held         int         // fan-outs waiting because of a synchronization
	syncing      bool        // a synchronization runs, or waits for fan-outs to end
	syncsWaiting int         // synchronizations waiting for their turn
	changed      wake.Signal // whenever any of the above changes
	leave        func()      // leaveEvent, bound once rather than per event
}

// enterEvent waits until no synchronization runs or waits, or until ctx
// ends; it returns the release on success.
func (b *barrier) enterEvent(ctx context.Context) (release func(), err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.syncing {
		b.held++
		b.changed.Broadcast()
		defer b.unhold()
	}
	for b.syncing {
		if !b.wait(ctx) {
			return nil, context.Cause(ctx)
		}
	}
	b.events++
	if b.leave == nil {
		b.leave = b.leaveEvent
	}
	return b.leave, nil
}

// unhold counts a held-back fan-out out. Called with mu held.
func (b *barrier) unhold() {
	b.held--
	b.changed.Broadcast()
}

func (b *barrier) leaveEvent() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.events--
	b.changed.Broadcast()
}

// enterSync waits for its turn, after the fan-outs that an earlier
// synchronization held back, then until no fan-out runs. It does not give
// up: fan-outs are bounded by their plugins' timeouts.
func (b *barrier) enterSync() (release func()) {
	release, _ = b.enterSyncCtx(context.Background())
	return release
}

// enterSyncCtx is enterSync that gives up when ctx ends, leaving the
// barrier as if it had never asked.
func (b *barrier) enterSyncCtx(ctx context.Context) (release func(), err error) {
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

func (b *barrier) leaveSync() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.syncing = false
	b.changed.Broadcast()
}

// wait waits for the next change, with mu held on entry and on return; it
// reports false if ctx ended first.
func (b *barrier) wait(ctx context.Context) bool {
	ch := b.changed.Wait()
	b.mu.Unlock()
	defer b.mu.Lock()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}
