// SPDX-License-Identifier: Apache-2.0

package syncx

import (
	"context"
	"sync"
	"testing"
	"time"
)

// returnsWithin runs f and fails the test if it has not returned within d.
func returnsWithin[T any](t *testing.T, d time.Duration, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("still waiting after %v", d)
		panic("unreachable")
	}
}

func TestClosed(t *testing.T) {
	ch := make(chan struct{})
	if Closed(ch) {
		t.Error("Closed reports an open channel closed")
	}
	close(ch)
	if !Closed(ch) {
		t.Error("Closed reports a closed channel open")
	}
}

func TestWithin(t *testing.T) {
	ch := make(chan struct{})
	if Within(ch, time.Millisecond) {
		t.Error("Within reports an open channel closed")
	}
	close(ch)
	if !returnsWithin(t, time.Minute, func() bool { return Within(ch, time.Hour) }) {
		t.Error("Within reports a closed channel open")
	}
}

func TestSleep(t *testing.T) {
	if !Sleep(context.Background(), time.Millisecond) {
		t.Error("Sleep with a live context reports it ended")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if returnsWithin(t, 10*time.Second, func() bool { return Sleep(ctx, time.Hour) }) {
		t.Error("Sleep with an ended context reports the hour passed")
	}
}

func TestWaitOrGiveUp(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()

	var idle sync.WaitGroup
	if !WaitOrGiveUp(ended, &idle, time.Hour) {
		t.Error("WaitOrGiveUp gives up on a WaitGroup already at zero")
	}

	var stuck sync.WaitGroup
	stuck.Add(1)
	defer stuck.Done()
	if returnsWithin(t, 10*time.Second, func() bool { return WaitOrGiveUp(ended, &stuck, time.Millisecond) }) {
		t.Error("WaitOrGiveUp reports a stuck WaitGroup done")
	}

	// Within the grace after ctx ended, a WaitGroup that reaches zero is
	// still waited for.
	var late sync.WaitGroup
	late.Add(1)
	got := make(chan bool, 1)
	go func() { got <- WaitOrGiveUp(ended, &late, time.Hour) }()
	late.Done()
	select {
	case ok := <-got:
		if !ok {
			t.Error("WaitOrGiveUp gave up on a WaitGroup done within the grace")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("WaitOrGiveUp still waiting after its WaitGroup reached zero")
	}
}
