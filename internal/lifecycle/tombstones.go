// SPDX-License-Identifier: Apache-2.0

// Recently removed IDs, so that late events for them are not relayed.

package lifecycle

// tombstones remembers the most recently removed ids in fixed memory, so
// that a late event for a removed pod or container is not relayed.
type tombstones struct {
	ring []string
	next int
	set  map[string]struct{}
}

func newTombstones(n int) tombstones {
	return tombstones{ring: make([]string, n), set: make(map[string]struct{}, n)}
}

func (t *tombstones) add(id string) {
	if id == "" {
		return
	}
	if _, ok := t.set[id]; ok {
		return
	}
	if old := t.ring[t.next]; old != "" {
		delete(t.set, old)
	}
	t.ring[t.next] = id
	t.set[id] = struct{}{}
	t.next = (t.next + 1) % len(t.ring)
}

func (t *tombstones) has(id string) bool {
	_, ok := t.set[id]
	return ok
}
