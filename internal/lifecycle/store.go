// SPDX-License-Identifier: Apache-2.0

// The store: per-object records that order and deduplicate events per plugin.

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
}

// seen is what one plugin has been told about one pod or container.
type seen uint8

const (
	seenCreated seen = 1 << iota
	seenStopped
	seenRemoved
	// seenOwed: its snapshot left out a pod whose creation it never heard;
	// it hears the pod's RunPodSandbox before any later event for it (owed.go).
	seenOwed
)

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

func (r *record[P]) state(p P) seen {
	s, ok := r.plugins.get(p)
	if !ok && r.assumed {
		return seenCreated
	}
	return s
}

// views is what each plugin has been told about one pod or container. A
// node has a few plugins, so a short list searched in order does better
// than a map, and the first few entries live in the record itself: a new
// record costs no allocation of its own for them.
type views[P comparable] struct {
	list []view[P]
	few  [4]view[P]
}

type view[P comparable] struct {
	p P
	s seen
}

func (v *views[P]) get(p P) (seen, bool) {
	for _, e := range v.list {
		if e.p == p {
			return e.s, true
		}
	}
	return 0, false
}

func (v *views[P]) set(p P, s seen) {
	for i := range v.list {
		if v.list[i].p == p {
			v.list[i].s = s
			return
		}
	}
	if v.list == nil {
		v.list = v.few[:0]
	}
	v.list = append(v.list, view[P]{p, s})
}

// add marks s as seen by p, besides what p saw before.
func (v *views[P]) add(p P, s seen) {
	old, _ := v.get(p)
	v.set(p, old|s)
}

func (v *views[P]) remove(p P) {
	for i := range v.list {
		if v.list[i].p == p {
			last := len(v.list) - 1
			copy(v.list[i:], v.list[i+1:])
			v.list[last] = view[P]{} // let p be collected
			v.list = v.list[:last]
			return
		}
	}
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

// Begin is the lifecycle's part of the start of an event's fan-out, in one
// locked pass. With refuseRemoved (a setup event) it returns the id of the
// pod or container of the request that was already removed, "" if none.
// Otherwise it records the pod or container whose creation begins (the
// request of RunPodSandbox or CreateContainer). podID and ctrID are the
// request's ([PodID], [ContainerID]).
func (l *Store[P]) Begin(ev api.Event, req any, refuseRemoved bool, podID, ctrID string) (removed string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if refuseRemoved {
		for _, id := range [...]string{podID, ctrID} {
			if id != "" && l.removed.has(id) {
				return id
			}
		}
	}
	l.present(l.pods[podID])
	l.present(l.ctrs[ctrID])
	switch ev {
	case api.Event_RUN_POD_SANDBOX:
		if r, ok := req.(*api.RunPodSandboxRequest); ok {
			l.podStartingLocked(r.GetPod())
		}
	case api.Event_CREATE_CONTAINER:
		if r, ok := req.(*api.CreateContainerRequest); ok {
			l.containerCreatingLocked(r.GetContainer())
		}
	}
	return ""
}

// podStarting records a pod whose RunPodSandbox fan-out is about to begin.
func (l *Store[P]) podStarting(pod *api.PodSandbox) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.podStartingLocked(pod)
}

func (l *Store[P]) podStartingLocked(pod *api.PodSandbox) {
	if id := pod.GetId(); id != "" && !l.removed.has(id) {
		// A snapshot may have listed the pod already: keep what it recorded.
		r := l.lookup(l.pods, id, "", false)
		if r.failed {
			l.unoweAll(r)
		}
		r.retryIfFailed()
		r.pod = pod
	}
}

// containerCreating records a container whose CreateContainer fan-out is
// about to begin.
func (l *Store[P]) containerCreating(ctr *api.Container) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.containerCreatingLocked(ctr)
}

func (l *Store[P]) containerCreatingLocked(ctr *api.Container) {
	if id := ctr.GetId(); id != "" && !l.removed.has(id) {
		r := l.lookup(l.ctrs, id, ctr.GetPodSandboxId(), false)
		r.retryIfFailed()
		r.ctr = ctr
	}
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

// ContainerCreated records whether a container's CreateContainer fan-out
// succeeded.
func (l *Store[P]) ContainerCreated(ctr *api.Container, ok bool) { l.ran(l.ctrs, ctr.GetId(), ok) }

// PodGivenUp and ContainerGivenUp record a creation that reached no plugin:
// the runtime's undo (its stop and removal) must not reach them either.
func (l *Store[P]) PodGivenUp(pod *api.PodSandbox) {
	l.podStarting(pod)
	l.PodRan(pod, false)
}

// ContainerGivenUp records a container's creation that reached no plugin,
// as [Store.PodGivenUp] does a pod's.
func (l *Store[P]) ContainerGivenUp(ctr *api.Container) {
	l.containerCreating(ctr)
	l.ContainerCreated(ctr, false)
}

// PodRan records whether a pod's RunPodSandbox fan-out succeeded.
func (l *Store[P]) PodRan(pod *api.PodSandbox, ok bool) { l.ran(l.pods, pod.GetId(), ok) }

// ran records whether the creation fan-out of a pod or container succeeded.
func (l *Store[P]) ran(m map[string]*record[P], id string, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r := m[id]; r != nil {
		r.ran, r.failed = ok, !ok
		l.present(r)
	}
}

// Admit decides whether p gets ev for the pod or container of req, and
// records that it did.
func (l *Store[P]) Admit(p P, ev api.Event, req any) bool {
	podID := PodID(req)
	l.mu.Lock()
	defer l.mu.Unlock()
	if podID == "" || l.removed.has(podID) {
		return podID == ""
	}
	pod := l.lookup(l.pods, podID, "", true)
	if !ev.IsContainerEvent() {
		return step(pod, p, ev)
	}
	ctrID := ContainerID(req)
	if ctrID == "" {
		return true
	}
	// A plugin hears of a container only within its pod's life as it saw it.
	if l.removed.has(ctrID) || pod.state(p)&(seenCreated|seenRemoved) != seenCreated {
		return false
	}
	// A container we never saw is taken to predate us only in a pod that
	// does: in a pod created or listed since, plugins cannot know it.
	return step(l.lookup(l.ctrs, ctrID, podID, pod.assumed), p, ev)
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

// step applies the contract for one event to one plugin's view.
func step[P comparable](r *record[P], p P, ev api.Event) bool {
	s := r.state(p)
	var want, forbid, mark seen
	switch ev {
	case api.Event_RUN_POD_SANDBOX, api.Event_CREATE_CONTAINER:
		forbid, mark = seenCreated, seenCreated
	case api.Event_STOP_POD_SANDBOX, api.Event_STOP_CONTAINER:
		want, forbid, mark = seenCreated, seenStopped|seenRemoved, seenStopped
	case api.Event_REMOVE_POD_SANDBOX, api.Event_REMOVE_CONTAINER:
		want, forbid, mark = seenCreated, seenRemoved, seenRemoved
	default:
		want, forbid = seenCreated, seenRemoved
	}
	if s&want != want || s&forbid != 0 {
		return false
	}
	r.plugins.set(p, s|mark)
	return true
}

// PodRemoved forgets a pod and its containers once its removal fan-out ended.
func (l *Store[P]) PodRemoved(pod *api.PodSandbox) {
	id := pod.GetId()
	if id == "" {
		return // never tracked
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if r := l.pods[id]; r != nil {
		l.unoweAll(r)
	}
	delete(l.pods, id)
	l.removed.add(id)
	for cid := range l.byPod[id] {
		delete(l.ctrs, cid)
		l.removed.add(cid)
	}
	delete(l.byPod, id)
}

// ContainerRemoved forgets a container once its removal fan-out ended.
func (l *Store[P]) ContainerRemoved(ctr *api.Container) {
	id := ctr.GetId()
	if id == "" {
		return // never tracked
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dropContainer(id)
	l.removed.add(id)
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
