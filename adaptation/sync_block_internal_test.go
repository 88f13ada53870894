// SPDX-License-Identifier: Apache-2.0

package adaptation

import (
	"sync"
	"sync/atomic"
	"testing"
)

// Unblock is safe on nil, twice, and from two goroutines at once: a block
// is released exactly once.
func TestPluginSyncBlockUnblockOnce(t *testing.T) {
	var none *PluginSyncBlock
	none.Unblock()
	(&PluginSyncBlock{}).Unblock()
	var released atomic.Int32
	release := func() { released.Add(1) }
	b := &PluginSyncBlock{}
	b.release.Store(&release)
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.Unblock()
		}()
	}
	wg.Wait()
	b.Unblock()
	if n := released.Load(); n != 1 {
		t.Fatalf("the block was released %d times, want once", n)
	}
}
