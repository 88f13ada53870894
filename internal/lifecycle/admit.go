// SPDX-License-Identifier: Apache-2.0

// The contract for one event and one plugin: whether it hears it.

package lifecycle

import "github.com/nrikit/nrikit/api"

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
		owed := pod.state(p)&(seenOwed|seenCreated) == seenOwed
		ok := step(pod, p, ev)
		if ok && owed && ev == api.Event_RUN_POD_SANDBOX {
			l.owing.Add(-1) // the pod's own RunPodSandbox tells what was owed
		}
		return ok
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
