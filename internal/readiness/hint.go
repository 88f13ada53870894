// SPDX-License-Identifier: Apache-2.0

// The hint that AwaitPlugins is called under a lock SyncFn takes: a required plugin that registered
// but whose synchronization SyncFn has not called back for.

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

// syncHints knows which plugins are synchronizing since when, which of
// them SyncFn called back for, and which were hinted about; it is guarded
// by the tracker's mutex.
type syncHints struct {
	since map[string]time.Time // by plugin id
	// calledBack: SyncFn called back with the runtime's lists, so the
	// runtime's lock is not what holds the plugin: it is the plugin's
	// Synchronize, which its sync timeout bounds.
	calledBack map[string]bool
	hinted     map[string]bool // until the plugin joins
}

func (h *syncHints) init() {
	h.since, h.calledBack, h.hinted = map[string]time.Time{}, map[string]bool{}, map[string]bool{}
}

func (h *syncHints) done(id string) {
	delete(h.since, id)
	delete(h.calledBack, id)
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

// SyncCalledBack records that the runtime's SyncFn called back for the
// plugin id's synchronization: whatever holds it now, it is not a lock
// AwaitPlugins's caller holds, and it is not hinted about.
func (r *Tracker) SyncCalledBack(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.hints.since[id]; ok {
		r.hints.calledBack[id] = true
	}
}

// hintDue is when the hint is due for the first of the missing plugins that
// synchronize and were not hinted about yet; zero if none.
func (r *Tracker) hintDue(missing []Missing) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	var due time.Time
	for _, m := range missing {
		if m.State != Synchronizing || r.hints.hinted[m.Plugin] || r.hints.calledBack[m.Plugin] {
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
		due := ok && !r.hints.hinted[m.Plugin] && !r.hints.calledBack[m.Plugin] && now.Sub(since) >= syncHintAfter
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
