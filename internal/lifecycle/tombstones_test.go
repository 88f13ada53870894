// SPDX-License-Identifier: Apache-2.0

// Unit tests of the recently removed ids.

package lifecycle

import (
	"fmt"
	"testing"
)

// TestTombstonesBounded: the most recent removals are remembered, in fixed
// memory; the oldest go first, and a repeated id takes no second place.
func TestTombstonesBounded(t *testing.T) {
	const n = 8
	ts := newTombstones(n)
	ts.add("")
	if ts.has("") || len(ts.set) != 0 {
		t.Fatal("an empty id was kept")
	}
	for i := range 3 * n {
		ts.add(fmt.Sprint(i))
		ts.add(fmt.Sprint(i))
		if len(ts.set) > n {
			t.Fatalf("%d tombstones kept, bound %d", len(ts.set), n)
		}
	}
	for i := range 3 * n {
		if want := i >= 2*n; ts.has(fmt.Sprint(i)) != want {
			t.Errorf("id %d remembered: %v, want %v", i, !want, want)
		}
	}
}
