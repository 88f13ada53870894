// SPDX-License-Identifier: Apache-2.0

// Scopes: the pods each plugin takes, decided once per plugin and pod and kept in the pod's record.

package lifecycle

import "github.com/nrikit/nrikit/api"

// Scopes tells which pods a plugin takes (internal/filter decides). A pod
// outside a plugin's scope, and its containers, never reach that plugin:
// no event, no snapshot entry, no catch-up. The decision is made once per
// plugin and pod, when the store first considers the pod for the plugin
// (its RunPodSandbox, the plugin's snapshot or catch-up, or the first
// event that names a pod created before nrikit), and kept in the pod's
// record: CRI fixes a sandbox's namespace, labels, annotations and runtime
// handler for its life, and the record lives as long as the pod (or its
// tombstone), so the decisions are bounded by the pods the runtime has.
type Scopes[P comparable] interface {
	// Filtered tells whether p takes only the pods of its scope. It is
	// called on every plugin's turn: it must be fast.
	Filtered(p P) bool
	// Takes tells whether pod is in p's scope. It is called with the
	// store's lock held, once per (p, pod).
	Takes(p P, pod *api.PodSandbox) bool
}

// SetScopes has s decide the plugins' scopes; without it every plugin
// takes every pod. Call it before the first event.
func (l *Store[P]) SetScopes(s Scopes[P]) { l.scopes = s }

// filtered tells whether p has a scope.
func (l *Store[P]) filtered(p P) bool { return l.scopes != nil && l.scopes.Filtered(p) }

// inScope decides, once, whether r's pod is in p's scope, from pod (a
// request's or a listing's) or else what r keeps of it. Called with mu
// held.
func (l *Store[P]) inScope(r *record[P], p P, pod *api.PodSandbox) bool {
	if !l.filtered(p) {
		return true
	}
	s, _ := r.plugins.get(p)
	switch {
	case s&seenOutOfScope != 0:
		return false
	case s&seenInScope != 0:
		return true
	}
	if pod == nil {
		pod = r.pod
	}
	if pod == nil {
		pod = &api.PodSandbox{Id: r.id}
	}
	in := l.scopes.Takes(p, pod)
	if in {
		r.plugins.add(p, seenInScope)
	} else {
		r.plugins.add(p, seenOutOfScope)
	}
	return in
}

// InScope returns the part of a snapshot (as [Store.Reconcile] returned
// it) that is in p's scope: the pods in it, and the containers of those
// pods. Each listed pod is decided for p and the decision kept. For a
// plugin without a scope it returns the lists as they are.
func (l *Store[P]) InScope(p P, pods []*api.PodSandbox, ctrs []*api.Container) ([]*api.PodSandbox, []*api.Container) {
	if !l.filtered(p) {
		return pods, ctrs
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	in := make(map[string]bool, len(pods))
	outPods := make([]*api.PodSandbox, 0, len(pods))
	for _, pod := range pods {
		id := pod.GetId()
		var ok bool
		if r := l.podRecord(pod); r != nil {
			ok = l.inScope(r, p, pod)
		} else {
			ok = l.scopes.Takes(p, pod)
		}
		in[id] = ok
		if ok {
			outPods = append(outPods, pod)
		}
	}
	outCtrs := make([]*api.Container, 0, len(ctrs))
	for _, c := range ctrs {
		podID := c.GetPodSandboxId()
		ok, listed := in[podID]
		if !listed {
			r := l.pods[podID]
			ok = r != nil && l.inScope(r, p, nil)
		}
		if ok {
			outCtrs = append(outCtrs, c)
		}
	}
	return outPods, outCtrs
}

// podRecord is the record of a listed pod, made if needed as Synced would
// make it; nil for a pod without an id, removed, or still being created.
// Called with mu held.
func (l *Store[P]) podRecord(pod *api.PodSandbox) *record[P] {
	id := pod.GetId()
	if id == "" || l.removed.has(id) {
		return nil
	}
	if r := l.pods[id]; r != nil {
		return r
	}
	if pod.GetState() == api.PodSandboxState_POD_SANDBOX_UNKNOWN {
		return nil
	}
	return l.lookup(l.pods, id, "", false)
}

// ContainerInScope tells whether p may be told of, or act on, the
// container id: always for a plugin without a scope; for one with a scope,
// only a container the store knows in a pod of its scope.
func (l *Store[P]) ContainerInScope(p P, id string) bool {
	if !l.filtered(p) {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.ctrs[id]
	if c == nil {
		return false
	}
	pod := l.pods[c.podID]
	return pod != nil && l.inScope(pod, p, nil)
}

// unnamedInScope decides for a request that names no pod, from what it
// carries, without keeping the decision: there is no record to keep it in.
func (l *Store[P]) unnamedInScope(p P, req any) bool {
	return !l.filtered(p) || l.scopes.Takes(p, podOf(req))
}
