// SPDX-License-Identifier: Apache-2.0

// Records the listings showed gone, kept in fixed memory for late teardowns.

package lifecycle

// forgotten keeps, in fixed memory, the records that listings showed gone,
// most recent first out last. The runtime's lists are the truth for joining
// plugins, but a runtime may still relay an event for an object its lists
// left out (one it stored late, or listed wrongly): the plugins that heard
// of that object then still hear of its teardown, in order. A plugin that
// joined since was not told of it, and is not now.
type forgotten[P comparable] struct {
	ring []*record[P]
	next int
	byID map[string]*record[P]
}

func newForgotten[P comparable](n int) forgotten[P] {
	return forgotten[P]{ring: make([]*record[P], n), byID: make(map[string]*record[P], n)}
}

// keep remembers r, dropping the oldest record kept if full. What r owes is
// dropped: the plugins owed it were not told, and are not.
func (f *forgotten[P]) keep(r *record[P]) {
	for i := len(r.plugins.list) - 1; i >= 0; i-- {
		if v := r.plugins.list[i]; v.s&(seenOwed|seenCreated) == seenOwed {
			r.plugins.remove(v.p)
		}
	}
	if old := f.ring[f.next]; old != nil && f.byID[old.id] == old {
		delete(f.byID, old.id)
	}
	f.ring[f.next] = r
	f.byID[r.id] = r
	f.next = (f.next + 1) % len(f.ring)
}

// recall takes back the record of id, if kept: a pod's (podID "") or a
// container's of the pod podID.
func (f *forgotten[P]) recall(id, podID string) *record[P] {
	r := f.byID[id]
	if r == nil || r.podID != podID {
		return nil
	}
	delete(f.byID, id)
	return r
}

// forget drops what p was told from every record kept.
func (f *forgotten[P]) forget(p P) {
	for _, r := range f.ring {
		if r != nil {
			r.plugins.remove(p)
		}
	}
}
