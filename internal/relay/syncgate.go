// SPDX-License-Identifier: Apache-2.0

// The runtime's blocks of plugin synchronization (BlockSync).

package relay

import "context"

// BlockSync keeps any plugin's synchronization from starting until release
// is called; any number of blocks can be held at once. A synchronization
// that already waits for blocks to end holds back new ones until it has
// run, so that neither side starves (adaptation.Adaptation.BlockPluginSync
// documents the runtime's use).
func (r *Relay) BlockSync() (release func()) {
	release, _ = r.syncGate.EnterShared(context.Background())
	return release
}
