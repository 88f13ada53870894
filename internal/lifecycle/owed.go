// SPDX-License-Identifier: Apache-2.0

// Pods owed to a plugin: their RunPodSandbox goes before the next event for them.

package lifecycle

import "github.com/nrikit/nrikit/api"

// A pod whose creation a plugin never heard, and that the runtime's list
// left out of its snapshot, is the runtime's to tell: it may be gone, or
// stored only after the listing. The plugin is owed it: if the runtime
// relays an event for the pod later, it still has it, and the plugin hears
// its RunPodSandbox right before that event, so pods still come before
// their containers, stops and removals, exactly once.
//
// While any pod is owed (Store.owing), every plugin's turn in a fan-out
// passes through Store.paying, held until the owed RunPodSandbox was
// sent: a concurrent event for the same pod cannot reach the plugin first.

// owe marks r as owed to p. Called with mu held.
func (l *Store[P]) owe(r *record[P], p P) {
	if s, _ := r.plugins.get(p); s&seenOwed == 0 {
		r.plugins.add(p, seenOwed)
		l.owing.Add(1)
	}
}

// unowe drops what r owes to p. Called with mu held, before r's views are
// dropped.
func (l *Store[P]) unowe(r *record[P], p P) {
	if r == nil {
		return
	}
	for _, v := range r.plugins.list {
		if v.p == p && v.s&(seenOwed|seenCreated) == seenOwed {
			l.owing.Add(-1)
		}
	}
}

// unoweAll drops what r owes to every plugin. Called with mu held, before
// r's views are dropped.
func (l *Store[P]) unoweAll(r *record[P]) {
	if r == nil {
		return
	}
	for _, v := range r.plugins.list {
		if v.s&(seenOwed|seenCreated) == seenOwed {
			l.owing.Add(-1)
		}
	}
}

// owedPod returns the pod of req that p is owed, marked created for p, or
// nil. A RunPodSandbox is the pod's announcement itself.
func (l *Store[P]) owedPod(p P, ev api.Event, req any) *api.PodSandbox {
	if ev == api.Event_RUN_POD_SANDBOX {
		return nil
	}
	podID := PodID(req)
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.pods[podID]
	if r == nil || r.state(p)&(seenOwed|seenCreated|seenRemoved) != seenOwed {
		return nil
	}
	r.plugins.add(p, seenCreated)
	return l.podOf(podID)
}

// PayOwed hands send the pod of req that p is owed, if any, before p's turn
// for ev: send tells p of it (by a RunPodSandbox), and p then knows the pod
// as created. While nothing is owed it returns at once, taking no lock. The
// ordering of payments is held across send, and the pod stops counting as
// owed only after send returned: see the ordering above.
func (l *Store[P]) PayOwed(p P, ev api.Event, req any, send func(pod *api.PodSandbox)) {
	if l.owing.Load() == 0 {
		return
	}
	l.paying.Lock()
	defer l.paying.Unlock()
	pod := l.owedPod(p, ev, req)
	if pod == nil {
		return
	}
	defer l.owing.Add(-1) // after the send: see the ordering above
	send(pod)
}
