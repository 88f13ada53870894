// SPDX-License-Identifier: Apache-2.0

// The last plugin changes, kept for Status.

package adaptation

import "sync"

// MaxRecentChanges is how many plugin changes Status keeps: the last ones,
// older ones are dropped.
const MaxRecentChanges = 48

// recentChanges is a ring of the last MaxRecentChanges changes.
type recentChanges struct {
	mu    sync.Mutex
	ring  [MaxRecentChanges]PluginChange
	next  int // where the next change goes
	count int // how many the ring holds
}

func (r *recentChanges) add(c PluginChange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ring[r.next] = c
	r.next = (r.next + 1) % MaxRecentChanges
	r.count = min(r.count+1, MaxRecentChanges)
}

// list returns the changes kept, oldest first.
func (r *recentChanges) list() []PluginChange {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]PluginChange, 0, r.count)
	first := (r.next - r.count + MaxRecentChanges) % MaxRecentChanges
	for i := range r.count {
		out = append(out, r.ring[(first+i)%MaxRecentChanges])
	}
	return out
}
