// SPDX-License-Identifier: Apache-2.0

// The last plugin changes, kept for Status.

package status

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

// Refused are the external connections that failed before or at
// registration.
type Refused struct {
	Total uint64 // since the RecentChanges were made
	// Last are the last MaxRecentRefused of them, oldest first. Never nil.
	Last []nri.Change
}

// RecentChanges keeps the last changes, and the last refused connections
// apart. The zero value is ready.
type RecentChanges struct {
	mu           sync.Mutex
	changes      ring[nri.Change]
	refused      ring[nri.Change]
	refusedTotal uint64
}

// Add keeps c, among the refused connections if it is one
// (nri.Change.RefusedConnection).
func (r *RecentChanges) Add(c nri.Change) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !c.RefusedConnection() {
		r.changes.add(c, MaxRecentChanges)
		return
	}
	r.refusedTotal++
	r.refused.add(c, MaxRecentRefused)
}

// List returns the changes kept, and the refused connections, oldest first.
// The changes' list is never nil.
func (r *RecentChanges) List() ([]nri.Change, Refused) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changes.list(), Refused{Total: r.refusedTotal, Last: r.refused.list()}
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
