// SPDX-License-Identifier: Apache-2.0

// Tests of the bound on refused connections answered at once.

package admission

import "testing"

// TestRefusals: at most n refusals are answered at once; a slot given back
// can be taken again.
func TestRefusals(t *testing.T) {
	const n = 3
	r := NewRefusals(n)
	for i := range n {
		if !r.TryAcquire() {
			t.Fatalf("refusal %d of %d got no slot", i+1, n)
		}
	}
	if r.TryAcquire() {
		t.Fatalf("refusal %d got a slot, want at most %d at once", n+1, n)
	}
	r.Release()
	if !r.TryAcquire() {
		t.Fatal("no slot after one was given back")
	}
	if r.TryAcquire() {
		t.Fatal("two slots after one was given back")
	}
}
