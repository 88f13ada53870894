// SPDX-License-Identifier: Apache-2.0

// The readiness tracker: the node-level state, the waiters' wake-ups and the plugins' stories, kept from joins and departures.

package readiness

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nrikit/nrikit/internal/nri"
)

// Tracker follows the plugins' joins and departures for the readiness
// gate: the node-level state, the waiters' wake-ups, and the last thing
// that happened to each plugin.
type Tracker struct {
	cfg       Config
	plugins   Plugins
	required  []string // node-level
	proceeded atomic.Uint64
	waiting   func() // tests: called as a pod starts waiting
	// deliveries is the goroutine that calls notify, for Stop to wait for.
	deliveries sync.WaitGroup

	mu      sync.Mutex
	running bool          // between Starting and Stopping
	changed chan struct{} // closed and replaced on every change
	waiters int
	ready   bool
	since   time.Time
	history pluginHistory
	hints   syncHints
	// restarting are the ids RestartPlugin replaces: their gap does not
	// flip Ready, as a replacement by a new instance does not.
	restarting map[string]bool
	flips      flipFeed
	wanted     wantedPlugins
}

// New is the gate of an adaptation with cfg, asking plugins about the
// active plugins. It is not ready until Starting.
func New(cfg Config, plugins Plugins) *Tracker {
	r := &Tracker{cfg: cfg, plugins: plugins}
	if cfg.Validator != nil {
		r.required = cfg.Validator.RequiredPlugins()
	}
	r.changed = make(chan struct{})
	r.since = time.Now()
	r.history.init()
	r.hints.init()
	r.restarting = map[string]bool{}
	r.wanted.init()
	return r
}

// on tells whether pods wait for their required plugins.
func (r *Tracker) on() bool { return r.cfg.Wait > 0 }

// changedLocked wakes the waiters and rechecks the node-level state: the
// node-level required plugins, and those pods required and lacked lately.
func (r *Tracker) changedLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
	lacked := len(r.missingWantedLocked()) > 0
	ready := r.running && r.allActive(r.required) && !lacked
	if !ready && r.ready && r.running && !lacked && r.onlyRestartingLocked() {
		return
	}
	if ready != r.ready {
		r.ready, r.since = ready, time.Now()
		r.flips.push(r, State{Ready: ready, Since: r.since, Required: r.required})
	}
}

// onlyRestartingLocked tells whether every missing node-level plugin is
// being restarted.
func (r *Tracker) onlyRestartingLocked() bool {
	for _, name := range r.required {
		if _, ok := r.plugins.ActiveAs(name); ok {
			continue
		}
		restarting := false
		for id := range r.restarting {
			restarting = restarting || Matches(name, id)
		}
		if !restarting {
			return false
		}
	}
	return true
}

// Restarting marks id as being restarted (RestartPlugin) until the
// returned func is called: its gap does not flip Ready.
func (r *Tracker) Restarting(id string) (done func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.restarting[id] = true
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.restarting, id)
		r.changedLocked()
	}
}

// Starting: the relay starts; pods may wait from now on.
func (r *Tracker) Starting() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running = true
	r.changedLocked()
}

// Stopping: the relay stops; it ends every wait.
func (r *Tracker) Stopping() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running = false
	clear(r.wanted.byName)
	r.scheduleExpiryLocked(time.Time{})
	r.changedLocked()
}

// Joined: the plugin id entered the dispatch list.
func (r *Tracker) Joined(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hints.done(id)
	r.history.forget(id)
	r.changedLocked()
}

// Left: the plugin id, which had joined, is gone; phase and reason say
// what it was doing and why.
func (r *Tracker) Left(id, phase, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.history.record(id, Missing{State: Left, Plugin: id, Phase: phase, Reason: reason, Time: time.Now()})
	r.changedLocked()
}

// Failed: the plugin id failed to join, during phase, for reason. A
// connection that failed before it registered (nri.Unregistered) tells
// nothing.
func (r *Tracker) Failed(id, phase, reason string) {
	if id == nri.Unregistered {
		return // nothing to tell it by
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hints.done(id)
	r.history.record(id, Missing{State: Failed, Plugin: id, Phase: phase, Reason: reason, Time: time.Now()})
	r.changedLocked()
}

// State is the node-level readiness now, with the story of each missing
// plugin when not ready: the node-level ones, then those pods lacked.
func (r *Tracker) State() State {
	r.mu.Lock()
	out := State{Ready: r.ready, Since: r.since, Required: slices.Clone(r.required), Proceeded: r.proceeded.Load()}
	r.mu.Unlock()
	if !out.Ready {
		out.Missing = r.nodeMissing(out.Required)
	}
	return out
}

// nodeMissing is what keeps the node not ready: the node-level required
// plugins that are not active, then those pods required and lacked.
func (r *Tracker) nodeMissing(required []string) []Missing {
	r.mu.Lock()
	lacked := r.wantedStoriesLocked(r.missingWantedLocked())
	r.mu.Unlock()
	return append(r.missing(required), lacked...)
}

// allActive tells whether every named plugin is active. It does not
// allocate.
func (r *Tracker) allActive(names []string) bool {
	for _, name := range names {
		if _, ok := r.plugins.ActiveAs(name); !ok {
			return false
		}
	}
	return true
}

// missing lists the named plugins that are not active, each with what
// happened to it last.
func (r *Tracker) missing(names []string) []Missing {
	var missing []Missing
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, name := range names {
		if _, ok := r.plugins.ActiveAs(name); ok {
			continue
		}
		m := r.storyLocked(name)
		m.Name = name
		missing = append(missing, m)
	}
	return missing
}

// storyLocked is the latest of what happened to a plugin the name matches.
func (r *Tracker) storyLocked(name string) Missing {
	if !r.running {
		return Missing{State: NotStarted}
	}
	if id, since, ok := r.hints.syncing(name); ok {
		return Missing{State: Synchronizing, Plugin: id, Time: since}
	}
	m, ok := r.history.latest(name)
	if !ok {
		return Missing{State: NeverConnected}
	}
	if until := r.plugins.BackoffUntil(m.Plugin); until.After(time.Now()) {
		m.State, m.BackoffUntil = SyncBackoff, until
	}
	return m
}
