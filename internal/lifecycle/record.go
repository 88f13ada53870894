// SPDX-License-Identifier: Apache-2.0

// What the store knows of one pod or container, and its signs of life.

package lifecycle

import "github.com/nrikit/nrikit/api"

// seen is what one plugin has been told about one pod or container.
type seen uint8

const (
	seenCreated seen = 1 << iota
	seenStopped
	seenRemoved
	// seenOwed: its snapshot left out a pod whose creation it never heard;
	// it hears the pod's RunPodSandbox before any later event for it (owed.go).
	seenOwed
	// seenInScope and seenOutOfScope: the pod's scope was decided for a
	// plugin with a filter (scope.go); out of scope, it hears nothing of
	// the pod or its containers.
	seenInScope
	seenOutOfScope
)

// record is what the store knows of one pod or container, and what each
// plugin was told of it.
type record[P comparable] struct {
	id    string
	pod   *api.PodSandbox // pods: the request that created it, for catch-up
	ctr   *api.Container  // containers: as created, for catch-up
	podID string          // containers: their pod
	seq   uint64          // creation order, for deterministic catch-up
	ran   bool            // its RunPodSandbox or CreateContainer fan-out completed
	// failed: its creation fan-out ended in failure, so a new creation of
	// the same id is the runtime's retry, which every plugin hears.
	failed  bool
	assumed bool // not created through us: plugins learned it in their snapshot
	// stoppedAt is the lifecycle clock when its first stop's fan-out ended.
	stoppedAt uint64
	// at is the lifecycle clock of the last sign that the runtime has it:
	// its record's creation, its creation's end, an event naming it, a
	// listing. missed is the clock of the listing that first left it out
	// since, 0 if none (unlisted.go).
	at, missed uint64
	plugins    views[P]
}

// present records a sign that the runtime still has r (nil: untracked).
// Called with mu held.
func (l *Store[P]) present(r *record[P]) {
	if r != nil {
		l.seq++
		r.at, r.missed = l.seq, 0
	}
}

// state is what p was told of r; an assumed record p has no view of (or
// only the decision that it is in p's scope) is known to p from its
// snapshot.
func (r *record[P]) state(p P) seen {
	s, ok := r.plugins.get(p)
	if r.assumed && (!ok || s == seenInScope) {
		return s | seenCreated
	}
	return s
}

// retryIfFailed starts a creation again after a failed one, as the
// reference relays every creation: the plugins that heard the failed
// attempt hear this one too, and a validator then finds the required
// plugins among those that handled it.
func (r *record[P]) retryIfFailed() {
	if r.failed {
		r.failed = false
		r.plugins = views[P]{}
	}
}
