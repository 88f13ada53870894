// SPDX-License-Identifier: Apache-2.0

// The plugins that pods required and lacked: they keep the node not ready until they join, or for a while.

package readiness

import (
	"time"
)

// wantedFor is how long a plugin that pods required and lacked keeps the
// node not ready after the last such pod, unless it joins: kubelet retries
// a pod whose creation failed with a back-off of at most 5 minutes, so a
// pod still waiting for the plugin retried well within it, and a pod given
// up on (or a misspelt name in one annotation) stops counting after it.
const wantedFor = 10 * time.Minute

// maxWanted bounds the plugins remembered: pods' annotations can name any
// number of them.
const maxWanted = 64

// wantedPlugins are the plugins that pods' annotations required and that
// were missing when those pods were held or created, which no node-level
// setting requires; guarded by the tracker's mutex.
type wantedPlugins struct {
	byName map[string]wanted
	// expiry flips the node back once the oldest entry expires.
	expiry *time.Timer
	ttl    time.Duration
}

// wanted is the last pod that lacked a plugin, and when.
type wanted struct {
	pod  string // "namespace/name"
	last time.Time
}

func (w *wantedPlugins) init() { w.byName, w.ttl = map[string]wanted{}, wantedFor }

// wantLocked records that pod lacked the missing plugins that no node-level
// setting requires.
func (r *Tracker) wantLocked(pod string, missing []Missing) {
	now := time.Now()
	for _, m := range missing {
		if m.State == NoAnswer || m.State == JoinedLate || containsName(r.required, m.Name) {
			continue // active, or node-level: the node is ready as far as they go
		}
		if _, known := r.wanted.byName[m.Name]; !known && len(r.wanted.byName) >= maxWanted {
			r.forgetOldestWantedLocked()
		}
		r.wanted.byName[m.Name] = wanted{pod: pod, last: now}
	}
	r.changedLocked()
}

func (r *Tracker) forgetOldestWantedLocked() {
	var oldest string
	var at time.Time
	for name, w := range r.wanted.byName {
		if oldest == "" || w.last.Before(at) {
			oldest, at = name, w.last
		}
	}
	delete(r.wanted.byName, oldest)
}

// missingWantedLocked keeps the wanted plugins that are still missing and
// not expired, and returns their names; it schedules the flip at the next
// expiry. It allocates only when some are.
func (r *Tracker) missingWantedLocked() []string {
	if len(r.wanted.byName) == 0 {
		return nil
	}
	now := time.Now()
	var names []string
	var next time.Time
	for name, w := range r.wanted.byName {
		_, active := r.plugins.ActiveAs(name)
		expires := w.last.Add(r.wanted.ttl)
		if active || !now.Before(expires) {
			delete(r.wanted.byName, name)
			continue
		}
		names = append(names, name)
		if next.IsZero() || expires.Before(next) {
			next = expires
		}
	}
	r.scheduleExpiryLocked(next)
	return names
}

// scheduleExpiryLocked has the node's readiness recomputed at next (none
// when zero).
func (r *Tracker) scheduleExpiryLocked(next time.Time) {
	if next.IsZero() {
		if r.wanted.expiry != nil {
			r.wanted.expiry.Stop()
		}
		return
	}
	if r.wanted.expiry == nil {
		r.wanted.expiry = time.AfterFunc(time.Until(next), func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.changedLocked()
		})
		return
	}
	r.wanted.expiry.Reset(time.Until(next))
}

// wantedStoriesLocked tells the story of each wanted plugin still missing,
// with the pod that lacked it last.
func (r *Tracker) wantedStoriesLocked(names []string) []Missing {
	out := make([]Missing, 0, len(names))
	for _, name := range names {
		m := r.storyLocked(name)
		m.Name, m.Pod = name, r.wanted.byName[name].pod
		out = append(out, m)
	}
	return out
}

func containsName(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}
