// SPDX-License-Identifier: Apache-2.0

// The store: the records of every pod and container, found or made by id.

package lifecycle

import (
	"sync"
	"sync/atomic"

	"github.com/nrikit/nrikit/api"
)

// Store enforces, per plugin, the pod and container lifecycle contract:
// a plugin hears of a pod (container) once as created, then at most one stop
// and one remove, in that order, and nothing after the remove. It also knows
// which pods ran, so that a plugin joining later can be told of those its
// snapshot missed. What the runtime's lists show to be gone is forgotten
// (unlisted.go), so its memory is bounded by what the runtime had at its
// last listings and what was created since (plus a fixed number of
// tombstones of removed ones and of records forgotten), even when no
// teardown event is relayed. P is the caller's identity of a plugin: the
// store compares plugins with == and keeps them as keys, nothing more.
type Store[P comparable] struct {
	mu        sync.Mutex
	pods      map[string]*record[P]
	ctrs      map[string]*record[P]
	byPod     map[string]map[string]struct{} // pod -> its containers' ids
	removed   tombstones
	forgotten forgotten[P] // records listings showed gone (forgotten.go)
	seq       uint64

	// sweepAbove is how many records make nrikit list the runtime's state
	// on its own; overgrown asks for that listing (sweep.go).
	sweepAbove int
	overgrown  chan struct{}

	// owing counts the pods owed to plugins; paying orders their payment
	// (owed.go).
	owing  atomic.Int64
	paying sync.Mutex

	// scopes decides which pods a plugin with a filter takes; nil: every
	// plugin takes every pod (scope.go).
	scopes Scopes[P]
}

// New returns an empty store for plugins identified by P.
func New[P comparable]() *Store[P] {
	return &Store[P]{
		pods:       map[string]*record[P]{},
		ctrs:       map[string]*record[P]{},
		byPod:      map[string]map[string]struct{}{},
		removed:    newTombstones(4096),
		forgotten:  newForgotten[P](1024),
		sweepAbove: SweepSlack,
		overgrown:  make(chan struct{}, 1),
	}
}

// lookup finds a record, creating one if needed. An event for an object we
// never saw created nor listed creates an assumed record: it existed before
// we tracked it, so every plugin is taken to know it from its snapshot.
func (l *Store[P]) lookup(m map[string]*record[P], id, podID string, assumed bool) *record[P] {
	r := m[id]
	if r != nil {
		return r
	}
	if r = l.forgotten.recall(id, podID); r != nil {
		l.present(r) // a listing left it out, yet the runtime has it
	} else {
		l.seq++
		r = &record[P]{id: id, podID: podID, seq: l.seq, at: l.seq, assumed: assumed}
	}
	m[id] = r
	if podID != "" {
		l.indexContainer(podID, id)
	}
	l.overgrownLocked()
	return r
}

func (l *Store[P]) indexContainer(podID, ctrID string) {
	ids := l.byPod[podID]
	if ids == nil {
		ids = map[string]struct{}{}
		l.byPod[podID] = ids
	}
	ids[ctrID] = struct{}{}
}

// Forget releases what was recorded for a plugin that left.
func (l *Store[P]) Forget(p P) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.pods {
		l.unowe(r, p)
		r.plugins.remove(p)
	}
	for _, r := range l.ctrs {
		r.plugins.remove(p)
	}
	l.forgotten.forget(p)
}

// ContainersOf lists the containers of a pod that plugins may know of, in
// creation order.
func (l *Store[P]) ContainersOf(pod *api.PodSandbox) []*api.Container {
	l.mu.Lock()
	defer l.mu.Unlock()
	var recs []*record[P]
	for id := range l.byPod[pod.GetId()] {
		r := l.ctrs[id]
		if r.ctr == nil {
			r.ctr = &api.Container{Id: id, PodSandboxId: pod.GetId()}
		}
		recs = append(recs, r)
	}
	return inCreationOrder(recs, func(r *record[P]) *api.Container { return r.ctr })
}

// HasContainer tells whether the runtime has container id, as far as the
// events relayed and the runtime's lists tell: created or being created (or
// named by an event, or listed), and not removed since. It is what
// limits the evictions a plugin may ask for (merge.Containers).
func (l *Store[P]) HasContainer(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.ctrs[id]
	return ok
}

// Records is how many pods and containers the store holds records of.
func (l *Store[P]) Records() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.pods) + len(l.ctrs)
}
