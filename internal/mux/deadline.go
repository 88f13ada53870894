// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"sync"
	"time"

	"github.com/nrikit/nrikit/internal/syncx"
)

// deadline is a point in time that blocked operations can select on: the
// channel from wait is closed once the deadline has passed. Moving the
// deadline keeps the same channel while it is open, so an operation already
// waiting honours the new time; once expired, a later deadline gets a fresh
// channel.
//
// Callers that bound each operation move the deadline for every one of them,
// so set allocates nothing once the timer exists: the one timer is re-armed.
type deadline struct {
	mu      sync.Mutex
	at      time.Time
	timer   *time.Timer // runs fire; nil until a future deadline is first set
	expired chan struct{}
}

func newDeadline() *deadline {
	return &deadline{expired: make(chan struct{})}
}

// set moves the deadline; the zero time means none.
func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.at = t
	if d.timer != nil {
		d.timer.Stop() // a run already under way finds the new time in fire
	}
	dur := time.Until(t)
	if !t.IsZero() && dur <= 0 {
		d.expireLocked()
		return
	}
	if syncx.Closed(d.expired) {
		d.expired = make(chan struct{})
	}
	switch {
	case t.IsZero():
	case d.timer == nil:
		d.timer = time.AfterFunc(dur, d.fire)
	default:
		d.timer.Reset(dur)
	}
}

// fire closes the channel if the deadline has passed, and otherwise waits
// again: a run of the timer may come after set moved the deadline on.
func (d *deadline) fire() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.at.IsZero() {
		return
	}
	if dur := time.Until(d.at); dur > 0 {
		d.timer.Reset(dur)
		return
	}
	d.expireLocked()
}

func (d *deadline) expireLocked() {
	if !syncx.Closed(d.expired) {
		close(d.expired)
	}
}

// wait returns a channel that is closed when the deadline passes.
func (d *deadline) wait() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.expired
}

// time returns the deadline, zero if none.
func (d *deadline) time() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.at
}
