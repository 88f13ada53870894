// SPDX-License-Identifier: Apache-2.0

// What a joining plugin's snapshot missed, to be told after it, in order.

package lifecycle

import (
	"cmp"
	"slices"

	"github.com/nrikit/nrikit/api"
)

// Missed is one event a joining plugin is told after its snapshot: a
// RunPodSandbox or StopPodSandbox of Pod, or a StopContainer of Container
// in Pod.
type Missed struct {
	Event     api.Event
	Pod       *api.PodSandbox
	Container *api.Container
}

// missingContainers lists the containers whose creation fan-out finished
// within the window the lists may have missed (sweep kept them unmissed)
// but that ctrs leaves out, in creation order, when the snapshot announces
// their pod: a joining plugin learns of them in its snapshot, as of every
// other live container, and never of a container before its pod. Called
// with mu held.
func (l *Store[P]) missingContainers(pods []*api.PodSandbox, ctrs []*api.Container) []*api.Container {
	seen := make(map[string]bool, len(ctrs))
	for _, c := range ctrs {
		seen[c.GetId()] = true
	}
	announced := make(map[string]bool, len(pods))
	for _, p := range pods {
		announced[p.GetId()] = p.GetState() != api.PodSandboxState_POD_SANDBOX_UNKNOWN
	}
	var missed []*record[P]
	for id, r := range l.ctrs {
		if r.ran && r.ctr != nil && r.missed == 0 && !seen[id] && l.announces(announced, r.podID) {
			missed = append(missed, r)
		}
	}
	return inCreationOrder(missed, func(r *record[P]) *api.Container { return r.ctr })
}

// announces reports whether a snapshot with the listed pods announces the
// pod id: listed as created, or added by announcePodsOf. Called with mu
// held.
func (l *Store[P]) announces(listed map[string]bool, id string) bool {
	if listed[id] {
		return true
	}
	r := l.pods[id]
	return r != nil && r.ran && r.pod != nil && r.missed == 0
}

// inCreationOrder sorts records by creation and picks what each carries.
func inCreationOrder[P comparable, T any](records []*record[P], pick func(*record[P]) T) []T {
	slices.SortFunc(records, func(a, b *record[P]) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]T, len(records))
	for i, r := range records {
		out[i] = pick(r)
	}
	return out
}

// Synced marks what p's snapshot announced (pods and ctrs, as
// [Store.Reconcile] returned them, and [Store.InScope] for a plugin with a
// scope), and returns what p still has to be told: the pods of its scope
// it missed, in creation order, then the stops since the clock since, in
// the order they happened. A pod the snapshot left out that the runtime's
// lists missed is owed to p instead ([Store.PayOwed]).
func (l *Store[P]) Synced(p P, pods []*api.PodSandbox, ctrs []*api.Container, since uint64) []Missed {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, pod := range pods {
		if pod.GetId() == "" || pod.GetState() == api.PodSandboxState_POD_SANDBOX_UNKNOWN || l.removed.has(pod.GetId()) {
			continue
		}
		r := l.lookup(l.pods, pod.GetId(), "", false)
		r.plugins.add(p, seenCreated)
	}
	for _, ctr := range ctrs {
		if ctr.GetId() != "" && !l.removed.has(ctr.GetId()) {
			r := l.lookup(l.ctrs, ctr.GetId(), ctr.GetPodSandboxId(), false)
			r.plugins.add(p, seenCreated)
		}
	}
	var missed []*record[P]
	for _, r := range l.pods {
		if !r.ran || r.state(p)&seenCreated != 0 || !l.inScope(r, p, nil) {
			continue
		}
		if r.missed != 0 {
			l.owe(r, p) // unlisted: the runtime's to tell (owed.go)
			continue
		}
		r.plugins.add(p, seenCreated)
		missed = append(missed, r)
	}
	events := inCreationOrder(missed, func(r *record[P]) Missed {
		return Missed{Event: api.Event_RUN_POD_SANDBOX, Pod: r.pod}
	})
	return append(events, l.stopsSince(p, since)...)
}
