// SPDX-License-Identifier: Apache-2.0

package relay

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nrikit/nrikit/internal/syncx"
)

func gateState(a *Relay) (blocks int, syncing bool) {
	st, _ := a.syncGate.State()
	return st.Shared, st.Exclusive
}

// waitUntil waits, on the barrier's own wake-ups, until cond holds.
func waitUntil(t *testing.T, b *syncx.Barrier, what string, cond func(syncx.BarrierState) bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		st, changed := b.State()
		if cond(st) {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("barrier never got to: %s", what)
		}
	}
}

// While a block is held no synchronization starts; a synchronization
// waiting for blocks holds back new ones until it has run, then they go.
func TestPluginSyncBlockHoldsBackSync(t *testing.T) {
	a := &Relay{}
	release := a.BlockSync()
	synced, leave := make(chan struct{}), make(chan func(), 1)
	go func() {
		release, err := a.syncGate.EnterExclusiveCtx(context.Background())
		if err != nil {
			t.Error(err)
		}
		leave <- release
		close(synced)
	}()
	waitUntil(t, &a.syncGate, "the sync waiting for the block", func(st syncx.BarrierState) bool { return st.Exclusive })
	later := make(chan func(), 1)
	go func() { later <- a.BlockSync() }()
	waitUntil(t, &a.syncGate, "a new block held back", func(st syncx.BarrierState) bool { return st.Held == 1 })
	if syncx.Closed(synced) {
		t.Fatal("a sync started while a block was held")
	}
	release()
	<-synced
	if len(later) != 0 {
		t.Fatal("a new block was granted while a sync ran")
	}
	(<-leave)()
	(<-later)()
	if n, syncing := gateState(a); n != 0 || syncing {
		t.Fatalf("gate left with %d blocks, syncing %v", n, syncing)
	}
}

// A synchronization that gives up waiting (its plugin's handshake ended)
// leaves the gate as it found it: new blocks are not held back.
func TestPluginSyncWaitGivesUp(t *testing.T) {
	a := &Relay{}
	release := a.BlockSync()
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	failed := make(chan error, 1)
	go func() {
		_, err := a.syncGate.EnterExclusiveCtx(ctx)
		failed <- err
	}()
	waitUntil(t, &a.syncGate, "the sync waiting for the block", func(st syncx.BarrierState) bool { return st.Exclusive })
	cancel()
	if err := <-failed; !errors.Is(err, context.Canceled) {
		t.Fatalf("sync wait = %v, want context.Canceled", err)
	}
	granted := make(chan func(), 1)
	go func() { granted <- a.BlockSync() }()
	select {
	case release := <-granted:
		release()
	case <-time.After(10 * time.Second):
		t.Fatal("a new block was held back by a sync that gave up")
	}
}
