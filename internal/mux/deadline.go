package mux

import (
	"sync"
	"time"
)

// deadline is a point in time that blocked operations can select on: the
// channel from wait is closed once the deadline has passed. Moving the
// deadline keeps the same channel while it is open, so an operation already
// waiting honours the new time; once expired, a later deadline gets a fresh
// channel.
type deadline struct {
	mu      sync.Mutex
	at      time.Time
	timer   *time.Timer
	expired chan struct{}
}

func newDeadline() *deadline {
	return &deadline{expired: make(chan struct{})}
}

// set moves the deadline; the zero time means none.
func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil && !d.timer.Stop() {
		<-d.expired // the timer fired: wait until it has closed the channel
	}
	d.timer = nil
	d.at = t
	dur := time.Until(t)
	if !t.IsZero() && dur <= 0 {
		if !isDone(d.expired) {
			close(d.expired)
		}
		return
	}
	if isDone(d.expired) {
		d.expired = make(chan struct{})
	}
	if !t.IsZero() {
		ch := d.expired
		d.timer = time.AfterFunc(dur, func() { close(ch) })
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

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
