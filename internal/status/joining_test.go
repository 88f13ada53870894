// SPDX-License-Identifier: Apache-2.0

package status

import (
	"testing"
	"time"

	"github.com/nrikit/nrikit/internal/nri"
)

// fired tells whether ch was closed, waiting for it at most a while: the
// signal is broadcast before the change's call returns, so a test that
// saw the call return waits only if the signal is broken.
func fired(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	case <-time.After(10 * time.Second):
		return false
	}
}

func notFired(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return false
	default:
		return true
	}
}

func TestJoiningListsHandshakesOldestFirst(t *testing.T) {
	var s Joining
	if l := s.List(); l == nil || len(l) != 0 {
		t.Fatalf("no handshake: %v, want an empty list (JSON: [])", l)
	}
	ext := s.Begin(nri.Unregistered, 42, nri.PhaseRegister)
	pre := s.Begin("10-pre", 43, nri.PhaseRegister)
	l := s.List()
	if len(l) != 2 || l[0].Plugin != nri.Unregistered || l[0].PID != 42 || l[1].Plugin != "10-pre" || l[0].Since.After(l[1].Since) {
		t.Fatalf("joining %+v, want the external connection, then 10-pre", l)
	}
	ext.Enter("20-ext", nri.PhaseConfigure)
	if l := s.List(); l[0].Plugin != "20-ext" || l[0].Phase != nri.PhaseConfigure || l[0].PID != 42 {
		t.Errorf("after registering: %+v, want 20-ext configuring", l[0])
	}
	ext.End()
	if l := s.List(); len(l) != 1 || l[0].Plugin != "10-pre" {
		t.Errorf("after the first ended: %+v, want 10-pre alone", l)
	}
	pre.End()
	if l := s.List(); len(l) != 0 {
		t.Errorf("after both ended: %+v, want none", l)
	}
}

// Each begin, phase change and end fires the signal, once.
func TestJoiningSignalsEachChange(t *testing.T) {
	var s Joining
	changed := s.Changed()
	if !notFired(changed) {
		t.Fatal("the signal fired with nothing changed")
	}
	h := s.Begin(nri.Unregistered, 0, nri.PhaseRegister)
	if !fired(changed) {
		t.Fatal("a begin did not fire the signal")
	}
	changed = s.Changed()
	if !notFired(changed) {
		t.Fatal("a new wait fired before the next change")
	}
	h.Enter("10-a", nri.PhaseSynchronize)
	if !fired(changed) {
		t.Fatal("a phase change did not fire the signal")
	}
	changed = s.Changed()
	h.End()
	if !fired(changed) {
		t.Fatal("an end did not fire the signal")
	}
}

// A nil Handshake (a plugin with no handshake recorded) records nothing.
func TestNilHandshake(t *testing.T) {
	var h *Handshake
	h.Enter("10-a", nri.PhaseConfigure)
	h.End()
}
