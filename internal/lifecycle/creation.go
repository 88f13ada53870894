// SPDX-License-Identifier: Apache-2.0

// Recording creations: a fan-out that begins, ends, or reaches no plugin.

package lifecycle

import "github.com/nrikit/nrikit/api"

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
