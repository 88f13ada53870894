// SPDX-License-Identifier: Apache-2.0

// The last plugin changes, kept for Status.

package adaptation

import (
	"sync"

	"github.com/nrikit/nrikit/internal/nri"
)

// MaxRecentChanges is how many plugin changes Status keeps: the last ones,
// older ones are dropped. External connections that failed before or at
// registration, which any local client can cause at will, are kept apart
// (MaxRecentRefused of them), so that a flood of them cannot push a
// plugin's departure out.
const (
	MaxRecentChanges = 48
	MaxRecentRefused = 8
)

// RefusedConnections are the external connections that failed before or at
// registration.
type RefusedConnections struct {
	Total uint64 `json:"total"` // since New
	// Last are the last MaxRecentRefused of them, oldest first.
	Last []PluginChange `json:"last"`
}

// recentChanges keeps the last changes, and the last refused connections
// apart.
type recentChanges struct {
	mu           sync.Mutex
	changes      ring[PluginChange]
	refused      ring[PluginChange]
	refusedTotal uint64
}

func (r *recentChanges) add(c PluginChange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !refusedConnection(c) {
		r.changes.add(c, MaxRecentChanges)
		return
	}
	r.refusedTotal++
	r.refused.add(c, MaxRecentRefused)
}

// refusedConnection tells an external connection that failed before or at
// registration: its identity, if any, is the peer's claim.
func refusedConnection(c PluginChange) bool {
	return c.Change == PluginFailed && c.Kind == KindExternal && (c.Phase == "" || c.Phase == nri.PhaseRegister)
}

// list returns the changes kept, and the refused connections, oldest first.
func (r *recentChanges) list() ([]PluginChange, RefusedConnections) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changes.list(), RefusedConnections{Total: r.refusedTotal, Last: r.refused.list()}
}

// ring holds the last items added, up to the size each add names.
type ring[T any] struct {
	items []T
	next  int // where the next item goes once full
}

func (r *ring[T]) add(item T, size int) {
	if len(r.items) < size {
		r.items = append(r.items, item)
		return
	}
	r.items[r.next] = item
	r.next = (r.next + 1) % size
}

// list returns the items, oldest first.
func (r *ring[T]) list() []T {
	out := make([]T, 0, len(r.items))
	out = append(out, r.items[r.next:]...)
	return append(out, r.items[:r.next]...)
}
