// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"slices"
)

// Updates a plugin returns from Synchronize when it joins. nrikit hands
// them to the runtime's SyncFn without saying which plugin asked, so
// nritest records and shows them as it does unsolicited updates.

// SyncUpdate is one container update a plugin returned from Synchronize;
// During is the phase of the run in which the plugin joined.
type SyncUpdate = UnsolicitedUpdate

// syncUpdates returns the sync updates recorded so far.
func (s *store) syncUpdates() []SyncUpdate {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.synced)
}

// textSyncUpdates lists the updates plugins returned from Synchronize, if
// any.
func (r *Report) textSyncUpdates(w io.Writer) {
	if len(r.SyncUpdates) == 0 {
		return
	}
	fmt.Fprintln(w, "SYNC UPDATES (returned from Synchronize by joining plugins, sender unknown to the runtime; nritest applies nothing)")
	updateRows(w, r.SyncUpdates)
	fmt.Fprintln(w)
}
