package adaptation

import "testing"

// TestAdmission: one process gets its share of places; when all places are
// taken, the oldest connection still waiting is closed to make room; a
// place given back twice (evicted, then its handshake ends) counts once.
func TestAdmission(t *testing.T) {
	ad := newAdmission()
	evicted := map[int]int{}
	var leaves []func()
	for pid := 1; pid <= MaxRegisteringConnections; pid++ {
		leave, ok := ad.enter(pid, func() { evicted[pid]++ })
		if !ok {
			t.Fatalf("connection %d of distinct processes refused", pid)
		}
		leaves = append(leaves, leave)
	}
	if _, ok := ad.enter(1000, func() {}); !ok || evicted[1] != 1 || len(evicted) != 1 {
		t.Fatalf("a newcomer with all places taken: evicted %v, want the oldest (pid 1) once", evicted)
	}
	leaves[0]() // the evicted connection's handshake ends
	leaves[0]()
	if len(ad.waiting) != MaxRegisteringConnections || ad.byPID[1] != 0 {
		t.Fatalf("%d waiting, pid 1 holds %d: an evicted place was given back twice", len(ad.waiting), ad.byPID[1])
	}
	for _, leave := range leaves[1:] {
		leave()
	}
	for i := range MaxRegisteringConnectionsPerPID {
		if _, ok := ad.enter(7, func() {}); !ok {
			t.Fatalf("connection %d of one process refused within its share", i+1)
		}
	}
	if _, ok := ad.enter(7, func() {}); ok {
		t.Fatal("a process got more than its share")
	}
	if _, ok := ad.enter(0, func() {}); !ok {
		t.Fatal("a connection of unknown pid refused: only the total bounds those")
	}
}
