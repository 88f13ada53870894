// SPDX-License-Identifier: Apache-2.0

// Tests of the context a socket plugin's call gets from the plugin's clock.

package relay

import (
	"context"
	"errors"
	"testing"
	"time"
)

type ctxKey struct{}

// waitDone fails the test unless ctx ends within a few seconds.
func waitDone(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the call's context did not end")
	}
}

func TestCallClockEndsTheCallAtItsDeadline(t *testing.T) {
	var k callClock
	parent := context.WithValue(context.Background(), ctxKey{}, "v")
	ctx, end := k.withDeadline(parent, time.Now().Add(20*time.Millisecond))
	defer end.end()
	if _, ok := ctx.(*callContext); !ok {
		t.Fatalf("an idle clock gave a %T, not its own context", ctx)
	}
	if ctx.Value(ctxKey{}) != "v" {
		t.Error("the call's context lost the caller's values")
	}
	waitDone(t, ctx)
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) || causeOf(ctx) != ErrPluginTimeout {
		t.Errorf("ended with %v (cause %v), want the deadline with ErrPluginTimeout", ctx.Err(), causeOf(ctx))
	}
	if w := whoseDeadline(ctx, ctx.Err(), false); w != ownDeadline {
		t.Errorf("the deadline is taken for %v, want the plugin's own", w)
	}
}

func TestCallClockFollowsTheCallersEnd(t *testing.T) {
	var k callClock
	why := errors.New("runtime gave up")
	parent, cancel := context.WithCancelCause(context.Background())
	ctx, end := k.withDeadline(parent, time.Now().Add(time.Hour))
	defer end.end()
	cancel(why)
	waitDone(t, ctx)
	if !errors.Is(ctx.Err(), context.Canceled) || causeOf(ctx) != why {
		t.Errorf("ended with %v (cause %v), want the caller's cancellation and cause", ctx.Err(), causeOf(ctx))
	}
}

func TestCallClockTimesOneCallAtATime(t *testing.T) {
	var k callClock
	first, end1 := k.withDeadline(context.Background(), time.Now().Add(time.Hour))
	second, end2 := k.withDeadline(context.Background(), time.Now().Add(20*time.Millisecond))
	if _, ok := second.(*callContext); ok {
		t.Fatal("a busy clock timed a second call")
	}
	waitDone(t, second)
	if causeOf(second) != ErrPluginTimeout {
		t.Errorf("the second call ended with cause %v, want ErrPluginTimeout", causeOf(second))
	}
	end2.end()
	if first.Err() != nil {
		t.Fatalf("the first call ended early: %v", first.Err())
	}
	end1.end()
	if !errors.Is(first.Err(), context.Canceled) {
		t.Errorf("an ended call's context says %v, want context.Canceled", first.Err())
	}

	// The timer, reused for a later call with a later deadline, does not
	// end it at the earlier call's.
	third, end3 := k.withDeadline(context.Background(), time.Now().Add(time.Hour))
	defer end3.end()
	if _, ok := third.(*callContext); !ok {
		t.Fatal("the clock, idle again, did not time the next call")
	}
	select {
	case <-third.Done():
		t.Fatalf("the next call ended early: %v", third.Err())
	case <-time.After(50 * time.Millisecond):
	}
}

func TestCallClockLeavesAnEarlierCallerDeadline(t *testing.T) {
	var k callClock
	parent, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	ctx, end := k.withDeadline(parent, time.Now().Add(time.Hour))
	defer end.end()
	waitDone(t, ctx)
	if causeOf(ctx) == ErrPluginTimeout {
		t.Error("the caller's deadline, which came first, was taken for the plugin's")
	}
}
