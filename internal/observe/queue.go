// SPDX-License-Identifier: Apache-2.0

// Queue: one observer's bounded FIFO of calls and the goroutine that makes them.

package observe

import (
	"context"
	"sync"
	"time"
)

// Item is one call queued for an observer.
type Item struct {
	// Size is the encoded size of its request, counted against
	// Config.MaxBytes.
	Size int
	// Unbounded items (the snapshot a joining observer is synchronized
	// with, which the node's state bounds) count against neither bound.
	Unbounded bool
	// Deliver makes the call within ctx, which Close cancels; it bounds
	// the call itself (the plugin's timeout).
	Deliver func(ctx context.Context)
}

// Config is a queue's bounds and its owner's seams.
type Config struct {
	// MaxEvents and MaxBytes bound the calls waiting (the one in delivery
	// is not waiting): a call that would pass either overflows the queue.
	MaxEvents, MaxBytes int
	// Overflow is told, once, on a goroutine of its own, that the queue
	// overflowed: behind counts the calls it will never deliver (those
	// waiting, the one in delivery, and the one that did not fit). The
	// queue has then closed.
	Overflow func(behind int)
	// Idle, if set, is told on the delivery goroutine each time the queue
	// has delivered every call it held: its Stats then show it.
	Idle func()
	// Go starts the queue's goroutines (its delivery loop, the overflow
	// report) so that the owner can wait for them; nil: the go statement.
	Go func(func())
}

type entry struct {
	Item
	queued time.Time
}

// Queue is one observer's calls, made in order on one goroutine. Its
// methods are safe for concurrent use.
type Queue struct {
	cfg    Config
	ctx    context.Context // of every delivery; Close cancels it
	cancel context.CancelFunc
	done   chan struct{} // closed when the delivery loop has ended

	mu         sync.Mutex
	items      []entry // waiting, oldest first
	waiting    int     // bounded items waiting
	bytes      int     // their encoded size
	wake       chan struct{}
	closed     bool
	delivering *entry        // the call in delivery, nil if none
	idle       chan struct{} // closed when nothing waits or is in delivery
	delivered  uint64
	lastLag    time.Duration
}

// New starts a queue: its delivery loop runs until Close, Drain or an
// overflow.
func New(cfg Config) *Queue {
	if cfg.Go == nil {
		cfg.Go = func(f func()) { go f() }
	}
	ctx, cancel := context.WithCancel(context.Background())
	q := &Queue{cfg: cfg, ctx: ctx, cancel: cancel, done: make(chan struct{}), wake: make(chan struct{}, 1), idle: make(chan struct{})}
	close(q.idle)
	cfg.Go(q.run)
	return q
}

// Push queues it, and reports whether it was queued. It never waits: a
// call that would pass a bound overflows the queue, which then takes and
// delivers nothing more and tells Config.Overflow.
func (q *Queue) Push(it Item) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	if !it.Unbounded {
		if q.waiting+1 > q.cfg.MaxEvents || q.bytes+it.Size > q.cfg.MaxBytes {
			behind := q.behindLocked()
			q.closeLocked()
			if q.cfg.Overflow != nil {
				q.cfg.Go(func() { q.cfg.Overflow(behind + 1) })
			}
			return false
		}
		q.waiting++
		q.bytes += it.Size
	}
	if len(q.items) == 0 && q.delivering == nil {
		q.idle = make(chan struct{})
	}
	q.items = append(q.items, entry{Item: it, queued: time.Now()})
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return true
}

// behindLocked counts the calls not delivered yet. Called with mu held.
func (q *Queue) behindLocked() int {
	n := len(q.items)
	if q.delivering != nil {
		n++
	}
	return n
}

// run delivers the calls in order until the queue closes.
func (q *Queue) run() {
	defer close(q.done)
	for {
		e, ok := q.next()
		if !ok {
			return
		}
		e.Deliver(q.ctx)
		if q.finished() && q.cfg.Idle != nil {
			q.cfg.Idle()
		}
	}
}

// next waits for the oldest call and marks it in delivery; false once the
// queue closed.
func (q *Queue) next() (*entry, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.closed {
		q.mu.Unlock()
		select {
		case <-q.wake:
		case <-q.ctx.Done():
		}
		q.mu.Lock()
	}
	if q.closed {
		return nil, false
	}
	e := q.items[0]
	q.items[0] = entry{} // let the request go once delivered
	q.items = q.items[1:]
	if !e.Unbounded {
		q.waiting--
		q.bytes -= e.Size
	}
	q.delivering = &e
	q.lastLag = time.Since(e.queued)
	return &e, true
}

// finished ends the delivery in progress, and tells whether that left the
// queue idle (and open).
func (q *Queue) finished() (idle bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.delivering = nil
	q.delivered++
	if len(q.items) == 0 {
		closeOnce(q.idle)
		return !q.closed
	}
	return false
}

// Close ends the queue at once: nothing more is queued or delivered, the
// call in delivery is cancelled, and the loop ends when that call
// returns (Done). It returns how many calls it left undelivered, the one
// in delivery included; 0 when the queue had already closed.
func (q *Queue) Close() (undelivered int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return 0
	}
	undelivered = q.behindLocked()
	q.closeLocked()
	return undelivered
}

func (q *Queue) closeLocked() {
	q.closed = true
	clear(q.items)
	q.items, q.waiting, q.bytes = nil, 0, 0
	q.cancel()
	closeOnce(q.idle)
}

// Drain waits, within ctx, until every call queued was delivered, then
// closes the queue; it returns how many calls it left undelivered.
func (q *Queue) Drain(ctx context.Context) (undelivered int) {
	q.mu.Lock()
	idle := q.idle
	q.mu.Unlock()
	select {
	case <-idle:
	case <-ctx.Done():
	}
	return q.Close()
}

// Done is closed when the delivery loop has ended: after Close, once the
// call in delivery returned.
func (q *Queue) Done() <-chan struct{} { return q.done }

func closeOnce(ch chan struct{}) {
	select {
	case <-ch:
	default:
		close(ch)
	}
}
