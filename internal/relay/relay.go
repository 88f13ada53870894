// SPDX-License-Identifier: Apache-2.0

// The Relay type: its state, its construction, and what it tells of its plugins.

package relay

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/admission"
	"github.com/nrikit/nrikit/internal/identity"
	"github.com/nrikit/nrikit/internal/lifecycle"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/ratelog"
	"github.com/nrikit/nrikit/internal/readiness"
	"github.com/nrikit/nrikit/internal/scope"
	"github.com/nrikit/nrikit/internal/status"
	"github.com/nrikit/nrikit/internal/syncx"
)

// Relay connects plugins and relays the runtime's events to them.
type Relay struct {
	cfg Config
	log *logrus.Entry

	registry     registry
	barrier      syncx.Barrier // events share it; a synchronizing plugin takes it alone
	syncGate     syncx.Barrier // BlockSync's: blocks share it, a synchronization takes it alone
	deprecations deprecations
	lifecycle    *lifecycle.Store[*plugin]
	updateCalls  updateCalls // the runtime's UpdateFn calls in progress
	readiness    *readiness.Tracker
	overflows    overflowCounts // observers dropped for their queue's overflow
	rolloutLogs  rolloutLogs    // the rollout warnings' rate limits, by plugin ID
	filters      bool           // some plugin has a scope of pods (scope.go)
	defaultDry   defaultDryRun  // the default validator run dry (dryrun.go)

	// Who may join now (internal/admission).
	admission   *admission.Admission       // external connections registering
	joinLogs    *admission.LogLimits       // lines about connections refused or failed before joining
	refusals    *admission.Refusals        // refused connections being answered (join_refusal.go)
	syncBackoff *admission.SyncBackoff     // plugins that timed out synchronizing
	budget      *admission.Budget[*plugin] // the event budget's checks, and plugins admitted by it, not joined yet

	mu       sync.Mutex // guards the fields below
	started  bool
	cancel   context.CancelFunc
	runCtx   context.Context // what Start launched plugins under; Stop cancels it
	listener net.Listener
	wg       sync.WaitGroup // every goroutine the relay starts
}

// New returns a Relay configured by cfg, not started.
func New(cfg Config) *Relay {
	r := &Relay{
		cfg:         cfg,
		log:         cfg.Log,
		lifecycle:   lifecycle.New[*plugin](),
		admission:   admission.NewAdmission(cfg.Registering),
		joinLogs:    admission.NewLogLimits(),
		refusals:    admission.NewRefusals(admission.MaxRefusalsAnswered),
		syncBackoff: admission.NewSyncBackoff(),
	}
	s := admission.BudgetSettings{Event: cfg.EventBudget, Reserve: cfg.DeadlineReserve, Check: cfg.BudgetCheck}
	r.budget = admission.NewBudget(s, r.registry.snapshot, comparePlugins)
	r.deprecations = deprecations{recorder: cfg.Deprecated, log: cfg.Log}
	r.readiness = readiness.New(cfg.Readiness, readinessPlugins{r})
	r.defaultDry.log = ratelog.New(1, rolloutLogWindow)
	if r.filters = cfg.anyFilter(); r.filters {
		r.lifecycle.SetScopes(pluginScopes{})
	}
	r.warnUnmatchable()
	return r
}

// Readiness is the readiness gate of the relay's plugins.
func (r *Relay) Readiness() *readiness.Tracker { return r.readiness }

// Started tells whether the relay is between Start and Stop.
func (r *Relay) Started() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.started
}

// SynchronizationHoldsEvents tells whether a plugin's synchronization holds
// the event barrier (or waits for it), and returns a channel closed at the
// barrier's next change.
func (r *Relay) SynchronizationHoldsEvents() (bool, <-chan struct{}) {
	s, changed := r.barrier.State()
	return s.Exclusive, changed
}

// PluginInfo describes one active plugin.
type PluginInfo struct {
	Plugin, Index, Name, Kind string
	Revision                  string   // "" for builtin plugins
	Events                    []string // as api.Event.Name() names them, in event order
	PID                       int
	FailurePolicy             nri.FailurePolicy
	StateChange               bool
	RequestTimeout            time.Duration
	// RequestTimeoutFrom and FailurePolicyFrom say where they came from:
	// FromOperator, FromPlugin or FromDefault.
	RequestTimeoutFrom, FailurePolicyFrom string
	// SettingsKey is the plugin_settings key that applies to it, "" if
	// none.
	SettingsKey string
	// Peer is an external plugin's, as told when it registered, and
	// PeerRules the operator's binding of its name that it matched; nil
	// for other plugins, or an unbound name.
	Peer      *identity.Peer
	PeerRules *identity.Rules
	// Allow is what the operator allows it to change; nil: everything.
	Allow *scope.Set
	// Stats are the instance's call counters.
	Stats *status.Counters
	// Rollout is what the operator chose for its rollout, and its counts.
	Rollout RolloutInfo
}

// Plugins lists the active plugins in dispatch order.
func (r *Relay) Plugins() []PluginInfo {
	var out []PluginInfo
	for _, p := range r.registry.all() {
		info := p.info()
		info.Rollout = r.rolloutInfo(p)
		out = append(out, info)
	}
	return out
}

func (p *plugin) info() PluginInfo {
	return PluginInfo{
		Plugin: p.id, Index: p.idx, Name: p.name, Kind: p.kind.String(), Revision: p.revisionName(),
		Events: eventNames(p.events), PID: p.conn.PID(), FailurePolicy: p.policy,
		StateChange:    p.compat.stateChange.Load(),
		RequestTimeout: p.timeout, RequestTimeoutFrom: p.timeoutFrom, FailurePolicyFrom: p.policyFrom,
		SettingsKey: p.settingsKey, Peer: p.peer, PeerRules: p.peerRules, Allow: p.allowed(),
		Stats: p.stats,
	}
}

func eventNames(m api.EventMask) []string {
	names := []string{}
	for _, e := range m.Events() {
		names = append(names, e.Name())
	}
	return names
}
