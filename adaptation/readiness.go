// SPDX-License-Identifier: Apache-2.0

// Readiness: whether the node-level required plugins are active, and what happened to those that are not.

package adaptation

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
)

// ErrPluginsNotReady: a pod's required plugins were not all active by the
// readiness bound, were lost while it was created, or did not answer its
// RunPodSandbox. The error names each missing plugin and what happened to
// it last.
var ErrPluginsNotReady = errors.New("nrikit: required plugins not ready")

// Readiness says whether every node-level required plugin (the default
// validator's required_plugins) is active. With none configured it is
// always ready once started.
type Readiness struct {
	Ready bool `json:"ready"`
	// Since is when Ready took its value (New, for the first one).
	Since time.Time `json:"since"`
	// Required are the node-level required plugins.
	Required []string `json:"required,omitempty"`
	// Missing are the required plugins that are not active, in the order
	// of Required.
	Missing []MissingPlugin `json:"missing,omitempty"`
	// Proceeded counts the pods created without all their required
	// plugins under on_timeout = "proceed".
	Proceeded uint64 `json:"proceeded,omitempty"`
}

// MissingState is what a missing required plugin did last.
type MissingState string

// The states of a missing plugin, most telling first.
const (
	// MissingNeverConnected: no plugin of that name joined or failed to.
	MissingNeverConnected MissingState = "never-connected"
	// MissingLeft: it had joined and is gone (Reason says why).
	MissingLeft MissingState = "left"
	// MissingFailed: it tried to join and failed (Phase and Reason).
	MissingFailed MissingState = "failed"
	// MissingSyncBackoff: its synchronization timed out and it may not
	// register again before BackoffUntil.
	MissingSyncBackoff MissingState = "sync-backoff"
	// MissingSynchronizing: it registered and is synchronizing since Time.
	MissingSynchronizing MissingState = "synchronizing"
	// MissingNotStarted: the adaptation is not started (or stopping).
	MissingNotStarted MissingState = "not-started"
)

// MissingPlugin is one required plugin that is not active, and its story.
type MissingPlugin struct {
	// Name is the required name, as configured ("foo" or "10-foo").
	Name  string       `json:"name"`
	State MissingState `json:"state"`
	// Plugin is the instance last seen under that name ("10-foo").
	Plugin string    `json:"plugin,omitempty"`
	Phase  string    `json:"phase,omitempty"`
	Reason string    `json:"reason,omitempty"`
	Time   time.Time `json:"time,omitzero"`
	// BackoffUntil is when a plugin in its sync back-off may register again.
	BackoffUntil time.Time `json:"backoff_until,omitzero"`
}

// String tells the story in one line: `"foo" left at 10:04:05 (connection lost)`.
func (m MissingPlugin) String() string {
	at := func(t time.Time) string { return t.Format(time.TimeOnly) }
	who := fmt.Sprintf("%q", m.Name)
	if m.Plugin != "" && m.Plugin != m.Name {
		who += " (" + m.Plugin + ")"
	}
	switch m.State {
	case MissingLeft:
		return fmt.Sprintf("%s left at %s: %s", who, at(m.Time), m.Reason)
	case MissingFailed:
		return fmt.Sprintf("%s failed to join at %s, during %s: %s", who, at(m.Time), m.Phase, m.Reason)
	case MissingSyncBackoff:
		return fmt.Sprintf("%s is in its sync back-off until %s", who, at(m.BackoffUntil))
	case MissingSynchronizing:
		return fmt.Sprintf("%s registered and is synchronizing since %s", who, at(m.Time))
	case MissingNotStarted:
		return fmt.Sprintf("%s: NRI is not started", who)
	}
	return who + " never connected"
}

// ReadinessCondition is Readiness shaped as a CRI RuntimeCondition, for a
// runtime to append to its status conditions.
type ReadinessCondition struct {
	Type    string
	Status  bool
	Reason  string
	Message string
}

// The CRI condition's type, and its reason when not ready.
const (
	ConditionPluginsReady     = "NRIPluginsReady"
	ConditionPluginsNotActive = "NRIRequiredPluginsNotActive"
)

// Condition is r as a CRI condition: Status is Ready, and when not ready
// the message tells each missing plugin's story.
func (r Readiness) Condition() ReadinessCondition {
	c := ReadinessCondition{Type: ConditionPluginsReady, Status: r.Ready}
	if !r.Ready {
		c.Reason = ConditionPluginsNotActive
		c.Message = stories(r.Missing)
	}
	return c
}

func stories(missing []MissingPlugin) string {
	parts := make([]string, len(missing))
	for i, m := range missing {
		parts[i] = m.String()
	}
	return strings.Join(parts, "; ")
}

// Readiness reports whether the node-level required plugins are active.
func (a *Adaptation) Readiness() Readiness {
	r := &a.readiness
	r.mu.Lock()
	out := Readiness{Ready: r.ready, Since: r.since, Required: slices.Clone(r.required), Proceeded: r.proceeded.Load()}
	r.mu.Unlock()
	if !out.Ready {
		out.Missing = a.missingPlugins(r.required)
	}
	return out
}

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
	if c.Plugin == unregistered {
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
		if (name == p.name || name == p.id) && !p.gone() {
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
	if until := r.a.syncBackoff.until(m.Plugin); until.After(time.Now()) {
		m.State, m.BackoffUntil = MissingSyncBackoff, until
	}
	return m
}

// pluginHistory is the last thing that happened to each plugin that left or
// failed to join, by id; bounded, the oldest forgotten first.
type pluginHistory struct {
	byID  map[string]MissingPlugin
	order []string
}

// historyKept bounds the plugins remembered: a local client can make up
// any number of plugin names.
const historyKept = 1024

func (h *pluginHistory) init() { h.byID = map[string]MissingPlugin{} }

func (h *pluginHistory) record(id string, m MissingPlugin) {
	if _, known := h.byID[id]; !known {
		h.order = append(h.order, id)
	}
	h.byID[id] = m
	for len(h.order) > historyKept {
		delete(h.byID, h.order[0])
		h.order = h.order[1:]
	}
}

func (h *pluginHistory) forget(id string) {
	if _, known := h.byID[id]; known {
		delete(h.byID, id)
		for i, o := range h.order {
			if o == id {
				h.order = append(h.order[:i:i], h.order[i+1:]...)
				break
			}
		}
	}
}

// latest is the most recent story of a plugin the required name matches.
func (h *pluginHistory) latest(name string) (MissingPlugin, bool) {
	var out MissingPlugin
	found := false
	for _, m := range h.byID {
		if idMatches(name, m.Plugin) && (!found || m.Time.After(out.Time)) {
			out, found = m, true
		}
	}
	return out, found
}

// idMatches tells whether a required name matches the plugin id "idx-name".
func idMatches(name, id string) bool {
	if name == id {
		return true
	}
	idx, pname, ok := strings.Cut(id, "-")
	return ok && idx != "" && pname == name
}

// requirementOf is what a pod requires, nil when it is exempt or the gate
// is off: its namespace is exempt, or it tolerates missing plugins. It does
// not allocate for a pod without the validator's annotations.
func (r *readinessTracker) requirementOf(pod *api.PodSandbox) ([]string, error) {
	if r.v == nil || !r.on() {
		return nil, nil
	}
	ns := pod.GetNamespace()
	for _, e := range r.opts.exempt {
		if ns == e {
			return nil, nil
		}
	}
	req, err := r.v.ForPod(pod)
	if err != nil {
		return nil, fmt.Errorf("%w: pod %s/%s: %w", ErrPluginsNotReady, ns, pod.GetName(), err)
	}
	if req.Tolerated {
		return nil, nil
	}
	return req.Plugins, nil
}
