// SPDX-License-Identifier: Apache-2.0

// Removals: a removed pod or container is forgotten and leaves a tombstone.

package lifecycle

import "github.com/nrikit/nrikit/api"

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
