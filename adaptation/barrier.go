package adaptation

import (
	"context"
	"sync"

	"github.com/nrikit/nrikit/internal/wake"
)

// barrier keeps event fan-outs and plugin synchronizations apart: any
// number of fan-outs run together, a synchronization runs alone. A waiting
// synchronization holds back new fan-outs, so that a steady flow of events
// cannot starve it. Unlike a sync.RWMutex, a fan-out may give up waiting
// when its caller's context ends.
type barrier struct {
	syncs sync.Mutex // one synchronization at a time

	mu      sync.Mutex
	events  int         // fan-outs in progress
	syncing bool        // a synchronization runs or waits for fan-outs to end
	changed wake.Signal // when events or syncing change
}

// enterEvent waits until no synchronization runs or waits, or until ctx
// ends; it returns the release on success.
func (b *barrier) enterEvent(ctx context.Context) (release func(), err error) {
	b.mu.Lock()
	for b.syncing {
		wait := b.changed.Wait()
		b.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		b.mu.Lock()
	}
	b.events++
	b.mu.Unlock()
	return b.leaveEvent, nil
}

func (b *barrier) leaveEvent() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.events--
	if b.events == 0 {
		b.changed.Broadcast()
	}
}

// enterSync waits until it is the only synchronization and no fan-out runs.
// It does not give up: fan-outs are bounded by their plugins' timeouts.
func (b *barrier) enterSync() (release func()) {
	b.syncs.Lock()
	b.mu.Lock()
	b.syncing = true
	for b.events > 0 {
		wait := b.changed.Wait()
		b.mu.Unlock()
		<-wait
		b.mu.Lock()
	}
	b.mu.Unlock()
	return b.leaveSync
}

func (b *barrier) leaveSync() {
	b.mu.Lock()
	b.syncing = false
	b.changed.Broadcast()
	b.mu.Unlock()
	b.syncs.Unlock()
}
