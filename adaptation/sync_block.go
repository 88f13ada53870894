// SPDX-License-Identifier: Apache-2.0

// BlockPluginSync: holding off synchronizations while the runtime stores a creation.

package adaptation

import (
	"sync/atomic"
)

// PluginSyncBlock holds back plugin synchronization until Unblock. Get one
// from BlockPluginSync.
type PluginSyncBlock struct {
	release atomic.Pointer[func()]
}

// BlockPluginSync keeps any plugin's synchronization from starting until the
// returned block is released; any number of blocks can be held at once. A
// synchronization that already waits for blocks to end holds back new ones
// until it has run, so that a steady flow of blocks cannot starve it; the
// blocks held back go before the next synchronization, so neither side
// starves. A synchronization waiting for blocks gives up when the plugin's
// handshake ends, so a block the runtime leaked cannot hang [Adaptation.Stop].
//
// nrikit does not need it for its guarantees: a plugin hears of every pod
// and container exactly once whatever the timing of the runtime's store (see
// [SyncFn]), but for a container the runtime stores only after
// CreateContainer returns: a plugin that connects meanwhile learns of it only
// if the lists carry it, which a block held until it is stored ensures
// (nrikit's own listings wait for blocks too). It is here for runtimes that
// use it, such as containerd, which holds a block around eight CRI
// operations. Take it before the runtime's own lock, never while holding a
// lock that SyncFn takes: a block may wait for a synchronization, and the
// synchronization calls SyncFn.
func (a *Adaptation) BlockPluginSync() *PluginSyncBlock {
	release := a.relay.BlockSync()
	b := &PluginSyncBlock{}
	b.release.Store(&release)
	return b
}

// Unblock releases the block. It is safe to call more than once, from any
// goroutine, and on a nil block.
func (b *PluginSyncBlock) Unblock() {
	if b == nil {
		return
	}
	if release := b.release.Swap(nil); release != nil {
		(*release)()
	}
}
