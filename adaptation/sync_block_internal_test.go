// SPDX-License-Identifier: Apache-2.0

package adaptation

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/nrikit/nrikit/internal/syncx"
)

func gateState(a *Adaptation) (blocks int, syncing bool) {
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

// Unblock is safe on nil, twice, and from two goroutines at once: a block
// is released exactly once.
func TestPluginSyncBlockUnblockOnce(t *testing.T) {
	a := &Adaptation{}
	var none *PluginSyncBlock
	none.Unblock()
	(&PluginSyncBlock{}).Unblock()
	b1, b2 := a.BlockPluginSync(), a.BlockPluginSync()
	b1.Unblock()
	b1.Unblock()
	if n, _ := gateState(a); n != 1 {
		t.Fatalf("after unblocking one of two blocks twice, %d held, want 1", n)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b2.Unblock()
		}()
	}
	wg.Wait()
	if n, _ := gateState(a); n != 0 {
		t.Fatalf("after unblocking both, %d held, want 0", n)
	}
}

// While a block is held no synchronization starts; a synchronization
// waiting for blocks holds back new ones until it has run, then they go.
func TestPluginSyncBlockHoldsBackSync(t *testing.T) {
	a := &Adaptation{}
	b := a.BlockPluginSync()
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
	later := make(chan *PluginSyncBlock, 1)
	go func() { later <- a.BlockPluginSync() }()
	waitUntil(t, &a.syncGate, "a new block held back", func(st syncx.BarrierState) bool { return st.Held == 1 })
	if syncx.Closed(synced) {
		t.Fatal("a sync started while a block was held")
	}
	b.Unblock()
	<-synced
	if len(later) != 0 {
		t.Fatal("a new block was granted while a sync ran")
	}
	(<-leave)()
	(<-later).Unblock()
	if n, syncing := gateState(a); n != 0 || syncing {
		t.Fatalf("gate left with %d blocks, syncing %v", n, syncing)
	}
}

// A synchronization that gives up waiting (its plugin's handshake ended)
// leaves the gate as it found it: new blocks are not held back.
func TestPluginSyncWaitGivesUp(t *testing.T) {
	a := &Adaptation{}
	b := a.BlockPluginSync()
	defer b.Unblock()
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
	granted := make(chan *PluginSyncBlock, 1)
	go func() { granted <- a.BlockPluginSync() }()
	select {
	case g := <-granted:
		g.Unblock()
	case <-time.After(10 * time.Second):
		t.Fatal("a new block was held back by a sync that gave up")
	}
}
