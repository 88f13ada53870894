// SPDX-License-Identifier: Apache-2.0

// Counting connections registering at once, in all and per process.

package admission

import (
	"fmt"
	"slices"
	"sync"
)

// Bounds are an Admission's places: Total in all, PerPID for one process.
// Refused is the error that every refusal wraps.
type Bounds struct {
	Total, PerPID int
	Refused       error
}

// Admission counts connections that have not registered, in all and per
// peer process (pid 0 where the OS does not tell, counted in all only).
type Admission struct {
	bounds  Bounds
	mu      sync.Mutex
	waiting []*admitted // oldest first
	byPID   map[int]int
}

// admitted is one connection's place; evict closes the connection.
type admitted struct {
	pid        int
	evict      func()
	registered bool // under Admission.mu: no longer evictable
}

// NewAdmission returns an Admission with the places of b.
func NewAdmission(b Bounds) *Admission {
	return &Admission{bounds: b, byPID: map[int]int{}}
}

// Enter takes a place for a connection from pid, closing the oldest one
// that has not registered when all are taken. registered marks the
// connection registered; leave gives its place back once its handshake
// ended. It fails when pid has its share, or every place is held by a
// registered plugin, with an error that wraps b.Refused and names the bound.
func (ad *Admission) Enter(pid int, evict func()) (registered, leave func(), err error) {
	ad.mu.Lock()
	if pid != 0 && ad.byPID[pid] >= ad.bounds.PerPID {
		ad.mu.Unlock()
		return nil, nil, fmt.Errorf("%w: process %d already has %d, the most one process may have "+
			"(from connecting until synchronized); connect the next plugin once an earlier one has synchronized",
			ad.bounds.Refused, pid, ad.bounds.PerPID)
	}
	var oldest *admitted
	if len(ad.waiting) >= ad.bounds.Total {
		if oldest = ad.oldestUnregisteredLocked(); oldest == nil {
			ad.mu.Unlock()
			return nil, nil, fmt.Errorf("%w: %d plugins are registering or synchronizing, the most the runtime admits at once",
				ad.bounds.Refused, ad.bounds.Total)
		}
		ad.removeLocked(oldest)
	}
	a := &admitted{pid: pid, evict: evict}
	ad.waiting = append(ad.waiting, a)
	if pid != 0 {
		ad.byPID[pid]++
	}
	ad.mu.Unlock()
	if oldest != nil {
		oldest.evict()
	}
	var once sync.Once
	return func() { ad.markRegistered(a) }, func() { once.Do(func() { ad.leave(a) }) }, nil
}

func (ad *Admission) oldestUnregisteredLocked() *admitted {
	for _, a := range ad.waiting {
		if !a.registered {
			return a
		}
	}
	return nil
}

func (ad *Admission) markRegistered(a *admitted) {
	ad.mu.Lock()
	defer ad.mu.Unlock()
	a.registered = true
}

func (ad *Admission) leave(a *admitted) {
	ad.mu.Lock()
	defer ad.mu.Unlock()
	ad.removeLocked(a)
}

// removeLocked takes a out, if it is still there (an evicted one is not).
func (ad *Admission) removeLocked(a *admitted) {
	i := slices.Index(ad.waiting, a)
	if i < 0 {
		return
	}
	ad.waiting = slices.Delete(ad.waiting, i, i+1)
	if a.pid == 0 {
		return
	}
	if ad.byPID[a.pid]--; ad.byPID[a.pid] == 0 {
		delete(ad.byPID, a.pid)
	}
}
