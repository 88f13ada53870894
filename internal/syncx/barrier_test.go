// SPDX-License-Identifier: Apache-2.0

package syncx

import (
	"context"
	"errors"
	"testing"
	"time"
)

// waitUntil waits, on the barrier's own wake-ups, until cond holds.
func waitUntil(t *testing.T, b *Barrier, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		b.mu.Lock()
		ok, ch := cond(), b.changed.Wait()
		b.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("barrier never got to: %s", what)
		}
	}
}

// Fan-outs held back by one synchronization go before the next one: plugins
// joining one after another cannot keep events out.
func TestBarrierHeldEventsGoBeforeTheNextSync(t *testing.T) {
	b := &Barrier{}
	leave1 := b.EnterExclusive()

	entered, finish := make(chan struct{}), make(chan struct{})
	go func() {
		release, err := b.EnterShared(context.Background())
		if err != nil {
			t.Error(err)
			return
		}
		close(entered)
		<-finish
		release()
	}()
	waitUntil(t, b, "an event held back", func() bool { return b.held == 1 })

	synced, leave2 := make(chan struct{}), make(chan func(), 1)
	go func() {
		leave2 <- b.EnterExclusive()
		close(synced)
	}()
	waitUntil(t, b, "a second sync waiting", func() bool { return b.syncsWaiting == 1 })

	leave1()
	<-entered
	if Closed(synced) {
		t.Fatal("the second sync started while the held-back event ran")
	}
	close(finish)
	<-synced
	(<-leave2)()
}

// A fan-out whose caller gives up while a synchronization runs leaves the
// barrier as it found it.
func TestBarrierEventGivesUp(t *testing.T) {
	b := &Barrier{}
	leave := b.EnterExclusive()
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() {
		_, err := b.EnterShared(ctx)
		gaveUp <- err
	}()
	waitUntil(t, b, "an event held back", func() bool { return b.held == 1 })
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Errorf("EnterShared = %v, want the caller's cancel", err)
	}
	leave()
	checkLeftEmpty(t, b)
}

// A fan-out gives up at its deadline while a synchronization runs, leaving
// the barrier as it found it; with no synchronization it enters at once,
// deadline passed or not.
func TestBarrierEventDeadline(t *testing.T) {
	b := &Barrier{}
	release, err := b.EnterSharedUntil(context.Background(), time.Now().Add(-time.Second))
	if err != nil {
		t.Fatalf("EnterSharedUntil with no synchronization = %v, want entry", err)
	}
	release()
	leave := b.EnterExclusive()
	deadline := time.Now().Add(50 * time.Millisecond)
	_, err = b.EnterSharedUntil(context.Background(), deadline)
	if !errors.Is(err, context.DeadlineExceeded) || time.Now().Before(deadline) {
		t.Errorf("EnterSharedUntil = %v, want context.DeadlineExceeded at its deadline", err)
	}
	leave()
	checkLeftEmpty(t, b)
}

// A synchronization waits for the fan-outs in progress, and new ones wait
// for it.
func TestBarrierSyncWaitsForEvents(t *testing.T) {
	b := &Barrier{}
	release, err := b.EnterShared(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	synced, leave := make(chan struct{}), make(chan func(), 1)
	go func() {
		leave <- b.EnterExclusive()
		close(synced)
	}()
	waitUntil(t, b, "the sync closing the barrier", func() bool { return b.syncing })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.EnterShared(ctx); err == nil {
		t.Error("a new event entered while a sync waited")
	}
	if Closed(synced) {
		t.Fatal("the sync started while an event ran")
	}
	release()
	<-synced
	(<-leave)()
}

// checkLeftEmpty fails t unless b is as it was new: no fan-out in or held,
// no synchronization.
func checkLeftEmpty(t *testing.T, b *Barrier) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held != 0 || b.events != 0 || b.syncing {
		t.Errorf("barrier left with held %d, events %d, syncing %v", b.held, b.events, b.syncing)
	}
}
