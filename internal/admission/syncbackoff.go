// SPDX-License-Identifier: Apache-2.0

// The back-off of plugins that timed out synchronizing (ErrSyncBackoff).

package admission

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// A plugin synchronizes while events wait (internal/relay's synchronizeAndJoin),
// so one that lets its Synchronize time out holds every event back for the
// sync timeout; reconnecting in a loop, it would do so again and again. After
// such a timeout, that index and name may not register again for a while,
// doubling with each timeout that comes within syncBackoffMax of the last.
// Joining in between does not reset it: a plugin could otherwise join for a
// moment after each timeout and keep its back-off at the first step.
const (
	syncBackoffFirst = 10 * time.Second
	syncBackoffMax   = 5 * time.Minute
	// syncBackoffKept bounds the identities remembered; the oldest go first.
	syncBackoffKept = 1024
)

// ErrSyncBackoff: an external plugin registered again too soon after its
// synchronization timed out. adaptation re-exports it.
var ErrSyncBackoff = errors.New("nrikit: plugin timed out synchronizing; refused until its back-off ends")

// SyncBackoff remembers the plugins that timed out synchronizing, by ID,
// and until when each may not register.
type SyncBackoff struct {
	mu    sync.Mutex
	now   func() time.Time
	byID  map[string]backoffEntry
	order []string // ids by first timeout, for eviction
}

type backoffEntry struct {
	last  time.Time // of the latest timeout
	until time.Time
	next  time.Duration
}

// NewSyncBackoff returns a SyncBackoff that remembers no timeout yet.
func NewSyncBackoff() *SyncBackoff {
	return &SyncBackoff{now: time.Now, byID: map[string]backoffEntry{}}
}

// TimedOut starts or lengthens id's back-off.
func (b *SyncBackoff) TimedOut(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	e, known := b.byID[id]
	if !known {
		b.order = append(b.order, id)
		b.evictLocked()
	}
	if !known || now.Sub(e.last) > syncBackoffMax {
		e.next = syncBackoffFirst
	}
	e.last, e.until = now, now.Add(e.next)
	e.next = min(2*e.next, syncBackoffMax)
	b.byID[id] = e
}

func (b *SyncBackoff) evictLocked() {
	for len(b.order) > syncBackoffKept {
		delete(b.byID, b.order[0])
		b.order = b.order[1:]
	}
}

// Check says why id may not register now, nil if it may.
func (b *SyncBackoff) Check(id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.byID[id]
	if !ok {
		return nil
	}
	if left := e.until.Sub(b.now()); left > 0 {
		return fmt.Errorf("%w (%v left)", ErrSyncBackoff, left.Round(time.Second))
	}
	return nil
}

// Until is when id's back-off ends; zero if it has none.
func (b *SyncBackoff) Until(id string) time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.byID[id].until
}
