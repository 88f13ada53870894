// SPDX-License-Identifier: Apache-2.0

// The hint that AwaitPlugins is called under a lock SyncFn takes: a required plugin that registered but cannot synchronize.

package readiness

import (
	"time"

	"github.com/sirupsen/logrus"
)

// syncHintAfter is how long a required plugin may synchronize while pods
// wait for it before the hint is logged. A healthy synchronization takes
// milliseconds; one held for a second is most likely waiting for the lock
// of a runtime that waits for it.
const syncHintAfter = time.Second

// syncHints knows which plugins are synchronizing since when, and which were
// hinted about; it is guarded by the tracker's mutex.
type syncHints struct {
	since  map[string]time.Time // by plugin id
	hinted map[string]bool      // until the plugin joins
}

func (h *syncHints) init() {
	h.since, h.hinted = map[string]time.Time{}, map[string]bool{}
}

func (h *syncHints) done(id string) {
	delete(h.since, id)
	if len(h.hinted) > historyKept {
		clear(h.hinted) // bounded: at worst a hint is logged again
	}
}

// syncing finds a plugin the required name matches that is synchronizing.
func (h *syncHints) syncing(name string) (id string, since time.Time, ok bool) {
	for id, since := range h.since {
		if Matches(name, id) {
			return id, since, true
		}
	}
	return "", time.Time{}, false
}

// Synchronizing records that the plugin id starts synchronizing, and wakes
// the waiters so that they time its hint; the returned func records that
// it ended.
func (r *Tracker) Synchronizing(id string) (ended func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hints.since[id] = time.Now()
	r.changedLocked()
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.hints.done(id)
	}
}

// hintDue is when the hint is due for the first of the missing plugins that
// synchronize and were not hinted about yet; zero if none.
func (r *Tracker) hintDue(missing []Missing) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	var due time.Time
	for _, m := range missing {
		if m.State != Synchronizing || r.hints.hinted[m.Plugin] {
			continue
		}
		if since, ok := r.hints.since[m.Plugin]; ok && (due.IsZero() || since.Add(syncHintAfter).Before(due)) {
			due = since.Add(syncHintAfter)
		}
	}
	return due
}

// hint logs, once per plugin, that a missing plugin has been synchronizing
// for over syncHintAfter while pods wait for it.
func (r *Tracker) hint(missing []Missing) {
	now := time.Now()
	for _, m := range missing {
		r.mu.Lock()
		since, ok := r.hints.since[m.Plugin]
		due := ok && !r.hints.hinted[m.Plugin] && now.Sub(since) >= syncHintAfter
		if due {
			r.hints.hinted[m.Plugin] = true
		}
		r.mu.Unlock()
		if due {
			r.cfg.Log.WithFields(logrus.Fields{"plugin": m.Plugin, "synchronizing": now.Sub(since).Round(time.Millisecond)}).
				Warn("nrikit: a required plugin registered but cannot synchronize while pods wait for it: " +
					"AwaitPlugins is probably called under a lock that SyncFn takes, or inside a BlockPluginSync block; call it before taking either")
		}
	}
}
