// SPDX-License-Identifier: Apache-2.0

// Tests of the places of connections registering at once.

package admission

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestAdmission: when all places are taken, the oldest connection that has
// not registered is closed to make room; one that registered is not, and
// with every place held by registered plugins a newcomer is refused. A
// place given back twice (evicted, then its handshake ends) counts once,
// and one process gets only its share.
// The bounds of adaptation's total and
// perPID, and its refusal error.
const (
	total  = 128
	perPID = 16
)

var errTooMany = errors.New("too many registering")

func TestAdmission(t *testing.T) {
	ad := NewAdmission(Bounds{Total: total, PerPID: perPID, Refused: errTooMany})
	evicted := map[int]int{}
	var marks, leaves []func()
	for pid := 1; pid <= total; pid++ {
		registered, leave, err := ad.Enter(pid, func() { evicted[pid]++ })
		if err != nil {
			t.Fatalf("connection %d of distinct processes refused: %v", pid, err)
		}
		marks, leaves = append(marks, registered), append(leaves, leave)
	}
	marks[0]() // pid 1 registered: pid 2 is the oldest still silent
	if _, _, err := ad.Enter(1000, func() {}); err != nil || evicted[2] != 1 || len(evicted) != 1 {
		t.Fatalf("a newcomer with all places taken: evicted %v, want the oldest silent one (pid 2) once", evicted)
	}
	leaves[1]() // the evicted connection's handshake ends
	leaves[1]()
	if len(ad.waiting) != total || ad.byPID[2] != 0 {
		t.Fatalf("%d waiting, pid 2 holds %d: an evicted place was given back twice", len(ad.waiting), ad.byPID[2])
	}
	for _, a := range ad.waiting {
		ad.markRegistered(a)
	}
	_, _, err := ad.Enter(1001, func() {})
	if !errors.Is(err, errTooMany) || !strings.Contains(err.Error(), "128 plugins are registering") {
		t.Fatalf("a newcomer with every place held by a registered plugin: %v, want refused naming the bound", err)
	}
	for i, leave := range leaves {
		if i != 1 {
			leave()
		}
	}
	for _, a := range slices.Clone(ad.waiting) {
		ad.leave(a)
	}
	for i := range perPID {
		if _, _, err := ad.Enter(7, func() {}); err != nil {
			t.Fatalf("connection %d of one process refused within its share: %v", i+1, err)
		}
	}
	_, _, err = ad.Enter(7, func() {})
	if !errors.Is(err, errTooMany) || !strings.Contains(err.Error(), "process 7 already has 16") {
		t.Fatalf("a process over its share: %v, want refused naming the bound", err)
	}
	if _, _, err := ad.Enter(0, func() {}); err != nil {
		t.Fatal("a connection of unknown pid refused: only the total bounds those")
	}
}
