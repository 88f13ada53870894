// SPDX-License-Identifier: Apache-2.0

// The readiness tracker: the node-level state, the waiters' wake-ups and the plugins' stories, kept from joins and departures.

package adaptation

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/internal/nri"
)

// readinessTracker follows the plugins' joins and departures for the
// readiness gate: the node-level state, the waiters' wake-ups, and the last
// thing that happened to each plugin.
type readinessTracker struct {
	a         *Adaptation
	opts      readinessOptions
	v         *validator.DefaultValidator // nil: no plugin is required
	required  []string                    // node-level
	notify    func(Readiness)
	proceeded atomic.Uint64
	waiting   func() // tests: called as a pod starts waiting
	// deliveries is the goroutine that calls notify, for Stop to wait for.
	deliveries sync.WaitGroup

	mu      sync.Mutex
	running bool          // between Start and Stop
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
}

func (r *readinessTracker) init(a *Adaptation) {
	r.a, r.opts, r.v, r.notify = a, a.opts.readiness, a.opts.defaultValidator, a.opts.readinessChanges
	if r.v != nil {
		r.required = r.v.RequiredPlugins()
	}
	r.changed = make(chan struct{})
	r.since = time.Now()
	r.history.init()
	r.hints.init()
	r.restarting = map[string]bool{}
}

// on tells whether pods wait for their required plugins.
func (r *readinessTracker) on() bool { return r.opts.wait > 0 }

// changedLocked wakes the waiters and rechecks the node-level state.
func (r *readinessTracker) changedLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
	ready := r.running && r.a.allActive(r.required)
	if !ready && r.ready && r.running && r.onlyRestartingLocked() {
		return
	}
	if ready != r.ready {
		r.ready, r.since = ready, time.Now()
		r.flips.push(r, Readiness{Ready: ready, Since: r.since, Required: r.required})
	}
}

// onlyRestartingLocked tells whether every missing node-level plugin is
// being restarted.
func (r *readinessTracker) onlyRestartingLocked() bool {
	active := r.a.registry.snapshot()
	for _, name := range r.required {
		if activeAs(active, name) != nil {
			continue
		}
		restarting := false
		for id := range r.restarting {
			restarting = restarting || idMatches(name, id)
		}
		if !restarting {
			return false
		}
	}
	return true
}

// restart marks id as being restarted until the returned func is called.
func (r *readinessTracker) restart(id string) (done func()) {
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

func (r *readinessTracker) starting() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running = true
	r.changedLocked()
}

func (r *readinessTracker) stopping() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running = false
	r.changedLocked()
}

// joined: p entered the dispatch list.
func (r *readinessTracker) joined(p *plugin) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hints.done(p.id)
	r.history.forget(p.id)
	r.changedLocked()
}

// left: p, which had joined, is gone.
func (r *readinessTracker) left(p *plugin, phase, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.history.record(p.id, MissingPlugin{State: MissingLeft, Plugin: p.id, Phase: phase, Reason: reason, Time: time.Now()})
	r.changedLocked()
}

// failed: a plugin failed to join.
func (r *readinessTracker) failed(c PluginChange) {
	if c.Plugin == nri.Unregistered {
		return // nothing to tell it by
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hints.done(c.Plugin)
	r.history.record(c.Plugin, MissingPlugin{State: MissingFailed, Plugin: c.Plugin, Phase: c.Phase, Reason: c.Reason, Time: time.Now()})
	r.changedLocked()
}

// allActive tells whether every named plugin is active. It does not
// allocate.
func (a *Adaptation) allActive(names []string) bool {
	active := a.registry.snapshot()
	for _, name := range names {
		if activeAs(active, name) == nil {
			return false
		}
	}
	return true
}

// activeAs finds the active plugin that a required name matches: by its
// name alone or with its index, as the default validator matches them.
func activeAs(active []*plugin, name string) *plugin {
	for _, p := range active {
		if idMatches(name, p.id) && !p.gone() {
			return p
		}
	}
	return nil
}

// missingPlugins lists the named plugins that are not active, each with
// what happened to it last.
func (a *Adaptation) missingPlugins(names []string) []MissingPlugin {
	r := &a.readiness
	active := a.registry.snapshot()
	var missing []MissingPlugin
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, name := range names {
		if activeAs(active, name) != nil {
			continue
		}
		m := r.storyLocked(name)
		m.Name = name
		missing = append(missing, m)
	}
	return missing
}

// storyLocked is the latest of what happened to a plugin the name matches.
func (r *readinessTracker) storyLocked(name string) MissingPlugin {
	if !r.running {
		return MissingPlugin{State: MissingNotStarted}
	}
	if id, since, ok := r.hints.syncing(name); ok {
		return MissingPlugin{State: MissingSynchronizing, Plugin: id, Time: since}
	}
	m, ok := r.history.latest(name)
	if !ok {
		return MissingPlugin{State: MissingNeverConnected}
	}
	if until := r.a.syncBackoff.Until(m.Plugin); until.After(time.Now()) {
		m.State, m.BackoffUntil = MissingSyncBackoff, until
	}
	return m
}
