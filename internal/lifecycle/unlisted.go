// SPDX-License-Identifier: Apache-2.0

// Applying the runtime's lists to the records: what they leave out is missed, then forgotten.

package lifecycle

import "github.com/nrikit/nrikit/api"

// The runtime's lists are the truth for what it had before a joining plugin
// arrived. nrikit's records bridge only the window from the plugin's
// arrival to the callback, what a runtime that lists without a lock (or
// stores an object only after its NRI call) may have missed: what was
// created, stopped or removed meanwhile. A record that a listing leaves out
// and that showed no sign of life within the window (record.at) is not put
// in the snapshot, and is forgotten once a later listing leaves it out too.
// So a runtime that relays no teardown event (moby relays only
// CreateContainer), drops one, or gives up a creation after the plugins
// adjusted it, keeps records of what it no longer has only until the next
// two listings. The second listing is what spares a live object whose
// runtime stored it after a listing: it stays known to the plugins that
// heard of it, and a pod left out of a snapshot is owed to that plugin
// (owed.go).

// sweep applies the lists to the records: what they carry is confirmed,
// with the pods of the containers they carry; what they leave out with no
// sign of life since from is marked missed, or forgotten when a listing
// before from missed it too. Called with mu held.
func (l *Store[P]) sweep(pods []*api.PodSandbox, ctrs []*api.Container, from uint64) {
	listed := make(map[string]bool, len(pods)+2*len(ctrs))
	for _, p := range pods {
		listed[p.GetId()] = true
	}
	for _, c := range ctrs {
		listed[c.GetId()] = true
		listed[c.GetPodSandboxId()] = true
	}
	l.seq++
	now := l.seq
	for id, r := range l.pods {
		if l.unlisted(r, listed[id], from, now) {
			l.forgetPod(id)
		}
	}
	kept := 0
	for id, r := range l.ctrs {
		if l.unlisted(r, listed[id], from, now) {
			l.forgetContainer(id)
		} else if r.missed == 0 {
			kept++
		}
	}
	for _, r := range l.pods {
		if r.missed == 0 {
			kept++
		}
	}
	l.sweptLocked(kept, len(pods)+len(ctrs))
}

// unlisted marks r as listed or missed by the listing at the clock now,
// and reports whether it is gone: missed by an earlier listing, by from
// (the sweep ticks the clock, so a listing at from came before), as well.
// Called with mu held.
func (l *Store[P]) unlisted(r *record[P], listed bool, from, now uint64) (gone bool) {
	switch {
	case listed:
		r.missed = 0
	case r.at > from: // within the window: the listing may have missed it
	case r.missed == 0:
		r.missed = now
	default:
		return r.missed <= from
	}
	return false
}

// forgetPod drops a pod and its containers without tombstones, keeping
// their records among the forgotten: the runtime no longer lists them, but
// an event for one of them later still reaches the plugins that knew it.
// Called with mu held.
func (l *Store[P]) forgetPod(id string) {
	r := l.pods[id]
	l.unoweAll(r)
	l.forgotten.keep(r)
	delete(l.pods, id)
	for cid := range l.byPod[id] {
		l.forgotten.keep(l.ctrs[cid])
		delete(l.ctrs, cid)
	}
	delete(l.byPod, id)
}

// forgetContainer drops a container's record, kept among the forgotten.
// Called with mu held.
func (l *Store[P]) forgetContainer(id string) {
	l.forgotten.keep(l.ctrs[id])
	l.dropContainer(id)
}

// dropContainer drops a container's record and its place in its pod's
// index. Called with mu held.
func (l *Store[P]) dropContainer(id string) {
	if r := l.ctrs[id]; r != nil {
		delete(l.byPod[r.podID], id)
		if len(l.byPod[r.podID]) == 0 {
			delete(l.byPod, r.podID)
		}
	}
	delete(l.ctrs, id)
}
