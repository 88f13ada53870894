// SPDX-License-Identifier: Apache-2.0

// Tests of the limits of the log lines about refused and failed connections.

package admission

import "testing"

// TestLogLimits: each kind of line has a limit of its own, so that a flood
// of refused connections does not hide the failures of unregistered ones.
func TestLogLimits(t *testing.T) {
	l := NewLogLimits()
	for i := range logBurst {
		if ok, _ := l.Refused.Allow(); !ok {
			t.Fatalf("refused line %d of %d held back", i+1, logBurst)
		}
	}
	if ok, _ := l.Refused.Allow(); ok {
		t.Fatalf("refused line %d allowed within the window, want at most %d", logBurst+1, logBurst)
	}
	if ok, _ := l.Unregistered.Allow(); !ok {
		t.Fatal("an unregistered connection's line held back by the refused ones")
	}
	if ok, _ := l.Named.Allow(); !ok {
		t.Fatal("a named connection's line held back by the refused ones")
	}
}
