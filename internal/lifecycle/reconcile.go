// SPDX-License-Identifier: Apache-2.0

// Reconciling a plugin's snapshot with the events relayed since the listing.

package lifecycle

import (
	"cmp"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

// The runtime's SyncFn runs while events go on: it may list its store
// before, during or after the fan-out of any event relayed between nrikit's
// call to it and its call back, and it may list without any lock. The
// lifecycle records what nrikit relayed meanwhile, on one clock (seq), so
// that a joining plugin's snapshot can be reconciled with it.

// Now reads the lifecycle clock.
func (l *Store[P]) Now() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seq
}

// PodStopped and ContainerStopped record, once, when a stop's fan-out
// ended. One that nrikit never saw created is recorded as an event for it
// would be (Admit): it predates nrikit.
func (l *Store[P]) PodStopped(pod *api.PodSandbox) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if id := pod.GetId(); id != "" && !l.removed.has(id) {
		l.stamp(l.lookup(l.pods, id, "", true))
	}
}

// ContainerStopped records, once, when a container's stop's fan-out ended,
// as [Store.PodStopped] does a pod's.
func (l *Store[P]) ContainerStopped(ctr *api.Container) {
	l.mu.Lock()
	defer l.mu.Unlock()
	id, podID := ctr.GetId(), ctr.GetPodSandboxId()
	if id == "" || podID == "" || l.removed.has(id) || l.removed.has(podID) {
		return
	}
	pod := l.lookup(l.pods, podID, "", true)
	l.stamp(l.lookup(l.ctrs, id, podID, pod.assumed))
}

func (l *Store[P]) stamp(r *record[P]) {
	if r.stoppedAt == 0 {
		l.seq++
		r.stoppedAt, r.at, r.missed = l.seq, l.seq, 0
	}
}

// Reconcile makes the runtime's lists a snapshot that agrees with what
// nrikit relayed since the clock from: it leaves out what was removed, adds
// the containers whose creation finished since (missingContainers), and
// announces the pod of every container it carries. What the lists leave out
// that showed no sign of life since from is the runtime's to tell: left out,
// and forgotten once two listings missed it (sweep). The caller holds the
// event barrier, so no fan-out is in flight. The runtime's slices and
// objects are not changed.
func (l *Store[P]) Reconcile(pods []*api.PodSandbox, ctrs []*api.Container, from uint64) ([]*api.PodSandbox, []*api.Container) {
	l.mu.Lock()
	defer l.mu.Unlock()
	pods = slices.DeleteFunc(slices.Clone(pods), func(p *api.PodSandbox) bool {
		return p == nil || l.removed.has(p.GetId())
	})
	ctrs = slices.DeleteFunc(slices.Clone(ctrs), func(c *api.Container) bool {
		return c == nil || l.removed.has(c.GetId()) || l.removed.has(c.GetPodSandboxId())
	})
	l.sweep(pods, ctrs, from)
	ctrs = append(ctrs, l.missingContainers(pods, ctrs)...)
	return l.announcePodsOf(pods, ctrs), ctrs
}

// announcePodsOf adds to pods, as ready, the pods whose creation finished
// that a container of ctrs belongs to but that pods leaves out or lists as
// still being created: a plugin hears of a pod before its containers. A
// runtime that lists pods and containers at different moments can list a
// container whose pod it missed. Called with mu held.
func (l *Store[P]) announcePodsOf(pods []*api.PodSandbox, ctrs []*api.Container) []*api.PodSandbox {
	at := make(map[string]int, len(pods))
	for i, p := range pods {
		at[p.GetId()] = i
	}
	for _, c := range ctrs {
		id := c.GetPodSandboxId()
		i, listed := at[id]
		if listed && pods[i].GetState() != api.PodSandboxState_POD_SANDBOX_UNKNOWN {
			continue
		}
		r := l.pods[id]
		if r == nil || !r.ran || r.pod == nil {
			continue
		}
		ready := proto.Clone(r.pod).(*api.PodSandbox)
		ready.State = api.PodSandboxState_POD_SANDBOX_READY
		if listed {
			pods[i] = ready
			continue
		}
		at[id] = len(pods)
		pods = append(pods, ready)
	}
	return pods
}

// stopsSince lists the stops relayed after the clock since of the pods and
// containers p knows as created but not as stopped, in the order they
// happened, and records that p has them. Called with mu held.
func (l *Store[P]) stopsSince(p P, since uint64) []Missed {
	type stop struct {
		r     *record[P]
		event Missed
	}
	var stops []stop
	for _, r := range l.pods {
		if r.stoppedAt > since && r.state(p)&(seenCreated|seenStopped|seenRemoved) == seenCreated {
			stops = append(stops, stop{r, Missed{Event: api.Event_STOP_POD_SANDBOX, Pod: l.podOf(r.id)}})
		}
	}
	for _, r := range l.ctrs {
		if r.stoppedAt <= since || r.state(p)&(seenCreated|seenStopped|seenRemoved) != seenCreated {
			continue
		}
		// As in Admit: a container only within its pod's life as p saw it.
		if pod := l.pods[r.podID]; pod == nil || pod.state(p)&(seenCreated|seenRemoved) != seenCreated {
			continue
		}
		ctr := r.ctr
		if ctr == nil {
			ctr = &api.Container{Id: r.id, PodSandboxId: r.podID}
		}
		stops = append(stops, stop{r, Missed{Event: api.Event_STOP_CONTAINER, Pod: l.podOf(r.podID), Container: ctr}})
	}
	slices.SortFunc(stops, func(a, b stop) int { return cmp.Compare(a.r.stoppedAt, b.r.stoppedAt) })
	out := make([]Missed, len(stops))
	for i, s := range stops {
		s.r.plugins.set(p, s.r.state(p)|seenStopped)
		out[i] = s.event
	}
	return out
}

// podOf is the pod as created, or as little as its id when nrikit never saw
// it created. Called with mu held.
func (l *Store[P]) podOf(id string) *api.PodSandbox {
	if r := l.pods[id]; r != nil && r.pod != nil {
		return r.pod
	}
	return &api.PodSandbox{Id: id}
}
