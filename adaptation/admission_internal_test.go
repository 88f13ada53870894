package adaptation

import (
	"slices"
	"testing"
)

// TestAdmission: when all places are taken, the oldest connection that has
// not registered is closed to make room; one that registered is not, and
// with every place held by registered plugins a newcomer is refused. A
// place given back twice (evicted, then its handshake ends) counts once,
// and one process gets only its share.
func TestAdmission(t *testing.T) {
	ad := newAdmission()
	evicted := map[int]int{}
	var marks, leaves []func()
	for pid := 1; pid <= MaxRegisteringConnections; pid++ {
		registered, leave, ok := ad.enter(pid, func() { evicted[pid]++ })
		if !ok {
			t.Fatalf("connection %d of distinct processes refused", pid)
		}
		marks, leaves = append(marks, registered), append(leaves, leave)
	}
	marks[0]() // pid 1 registered: pid 2 is the oldest still silent
	if _, _, ok := ad.enter(1000, func() {}); !ok || evicted[2] != 1 || len(evicted) != 1 {
		t.Fatalf("a newcomer with all places taken: evicted %v, want the oldest silent one (pid 2) once", evicted)
	}
	leaves[1]() // the evicted connection's handshake ends
	leaves[1]()
	if len(ad.waiting) != MaxRegisteringConnections || ad.byPID[2] != 0 {
		t.Fatalf("%d waiting, pid 2 holds %d: an evicted place was given back twice", len(ad.waiting), ad.byPID[2])
	}
	for _, a := range ad.waiting {
		ad.markRegistered(a)
	}
	if _, _, ok := ad.enter(1001, func() {}); ok {
		t.Fatal("a newcomer got in with every place held by a registered plugin")
	}
	for i, leave := range leaves {
		if i != 1 {
			leave()
		}
	}
	for _, a := range slices.Clone(ad.waiting) {
		ad.leave(a)
	}
	for i := range MaxRegisteringConnectionsPerPID {
		if _, _, ok := ad.enter(7, func() {}); !ok {
			t.Fatalf("connection %d of one process refused within its share", i+1)
		}
	}
	if _, _, ok := ad.enter(7, func() {}); ok {
		t.Fatal("a process got more than its share")
	}
	if _, _, ok := ad.enter(0, func() {}); !ok {
		t.Fatal("a connection of unknown pid refused: only the total bounds those")
	}
}
