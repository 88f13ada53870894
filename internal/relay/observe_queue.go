// SPDX-License-Identifier: Apache-2.0

// The queue of an observer or a dry-run validator: started at its registration, overflowing
// into its drop, drained by Stop.

package relay

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/nrikit/nrikit/internal/observe"
)

// startQueue gives p its queue (internal/observe). Its goroutines are the
// relay's, which Stop waits for; they end when p is closed.
func (r *Relay) startQueue(p *plugin) {
	events := r.cfg.ObserverQueue
	if events <= 0 {
		events = DefaultObserverQueue
	}
	p.rollout.queue = observe.New(observe.Config{
		MaxEvents: events,
		MaxBytes:  ObserverQueueBytes,
		Overflow:  func(behind int) { r.overflowed(p, behind) },
		Idle:      func() { p.log.Debug("nrikit: the plugin's queue is delivered") },
		Go: func(f func()) {
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				f()
			}()
		},
	})
}

// overflowed drops p, whose queue overflowed: it is never waited for, and
// never skips an event silently. It reconnects and resynchronizes.
func (r *Relay) overflowed(p *plugin, behind int) {
	r.overflows.add(p.id)
	r.dropFor(context.Background(), p, "", func() string {
		return fmt.Sprintf("observer queue overflow (%d events behind)", behind)
	})
}

// drainQueue delivers, within ctx, what p's queue holds, before Stop shuts
// p down; it leaves Shutdown a share of ctx (the request timeout, or half
// of what is left if less), and logs what it left undelivered.
func (r *Relay) drainQueue(ctx context.Context, p *plugin) {
	q := p.rollout.queue
	if q == nil {
		return
	}
	if deadline, ok := ctx.Deadline(); ok {
		share := min(r.cfg.Request, time.Until(deadline)/2)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-share))
		defer cancel()
	}
	if n := q.Drain(ctx); n > 0 {
		p.log.WithField("undelivered", n).Warn("nrikit: Stop's deadline came before the plugin's queued events were delivered")
	}
}

// overflowCounts counts, by plugin ID, the instances dropped because their
// queue overflowed. Only plugins the operator made observers or dry-run
// validators have a queue, so its keys are bounded by the operator's
// settings (a bare name's, by the 100 indices).
type overflowCounts struct {
	mu sync.Mutex
	n  map[string]uint64
}

func (o *overflowCounts) add(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.n == nil {
		o.n = map[string]uint64{}
	}
	o.n[id]++
}

func (o *overflowCounts) of(id string) uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n[id]
}
