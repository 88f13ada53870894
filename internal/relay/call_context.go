// SPDX-License-Identifier: Apache-2.0

// The context of one call to a socket plugin: its caller's, ended at the call's own deadline by the plugin's one reused timer.

package relay

import (
	"context"
	"sync"
	"time"
)

// callClock ends the calls to one socket plugin at their own deadlines
// with one timer, made once and reset for each call: the plugin takes one
// call at a time. context.WithTimeoutCause would make a timer, two closures
// and a context for every call.
type callClock struct {
	mu    sync.Mutex
	timer *time.Timer
	cur   *callContext // the call it times, nil when idle
}

// callContext is a call's context: the caller's values, ended at the call's
// own deadline with ErrPluginTimeout as its cause. It serves callers whose
// context cannot end (its Done is nil), as the runtime's background calls
// and the benchmarks' are: watching a caller's end takes context.AfterFunc,
// which costs more than the standard context it would replace. Ending it
// (end) releases it as a context.CancelFunc does.
type callContext struct {
	context.Context
	clock    *callClock
	deadline time.Time
	done     chan struct{}

	mu    sync.Mutex
	err   error
	cause error
}

// callEnd ends the context of a call, whichever kind it got.
type callEnd struct {
	cc     *callContext
	cancel context.CancelFunc
}

func (e callEnd) end() {
	if e.cc != nil {
		e.cc.end()
		return
	}
	e.cancel()
}

// withDeadline is ctx ended also at deadline, with ErrPluginTimeout as the
// cause: a callContext timed by the plugin's clock, or a standard one where
// the caller's context can end or the clock times another call (a call
// waiting for its turn).
func (k *callClock) withDeadline(ctx context.Context, deadline time.Time) (context.Context, callEnd) {
	if ctx.Done() != nil || !k.idle() {
		// The caller's context can end, or the clock is busy: the
		// standard context keeps the caller's end and cause.
		ctx, cancel := context.WithDeadlineCause(ctx, deadline, ErrPluginTimeout)
		return ctx, callEnd{cancel: cancel}
	}
	c := &callContext{Context: ctx, clock: k, deadline: deadline, done: make(chan struct{})}
	if !k.start(c) {
		ctx, cancel := context.WithDeadlineCause(ctx, deadline, ErrPluginTimeout)
		return ctx, callEnd{cancel: cancel}
	}
	return c, callEnd{cc: c}
}

func (k *callClock) idle() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.cur == nil
}

// start times c; false if the clock is timing another call.
func (k *callClock) start(c *callContext) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cur != nil {
		return false
	}
	k.cur = c
	d := time.Until(c.deadline)
	if k.timer == nil {
		k.timer = time.AfterFunc(d, k.fire)
	} else {
		k.timer.Reset(d)
	}
	return true
}

// fire ends the call timed, if its deadline has passed; a run of the timer
// meant for an earlier call finds a later deadline and waits again.
func (k *callClock) fire() {
	k.mu.Lock()
	c := k.cur
	if c == nil {
		k.mu.Unlock()
		return
	}
	if d := time.Until(c.deadline); d > 0 {
		k.timer.Reset(d)
		k.mu.Unlock()
		return
	}
	k.mu.Unlock()
	c.stop(context.DeadlineExceeded, ErrPluginTimeout)
}

// release stops timing c.
func (k *callClock) release(c *callContext) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cur == c {
		k.cur = nil
		k.timer.Stop()
	}
}

func (c *callContext) Deadline() (time.Time, bool) { return c.deadline, true }
func (c *callContext) Done() <-chan struct{}       { return c.done }

func (c *callContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// stop ends c with err and cause, unless it has ended.
func (c *callContext) stop(err, cause error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err, c.cause = err, cause
	close(c.done)
}

// end releases c once the call is over, as a CancelFunc does.
func (c *callContext) end() {
	c.clock.release(c)
	c.stop(context.Canceled, context.Canceled)
}

// causeOf is context.Cause, for a callContext too: context.Cause finds a
// callContext's caller's cancel, not its own.
func causeOf(ctx context.Context) error {
	if c, ok := ctx.(*callContext); ok {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.cause
	}
	return context.Cause(ctx)
}
