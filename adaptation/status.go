// SPDX-License-Identifier: Apache-2.0

// Status: what an operator asks of NRI — its settings, its plugins and how their calls went.

package adaptation

import (
	"slices"
	"time"
)

// StatusSchemaVersion is the version of Status's JSON form. Fields are only
// ever added within a version; a field renamed, removed or changed in
// meaning makes a new one.
const StatusSchemaVersion = 1

// Status is a snapshot of the adaptation for operators, as
// [Adaptation.Status] returns it. It encodes to JSON with the field names
// below, which are stable (see StatusSchemaVersion); docs/status.md
// describes each.
type Status struct {
	SchemaVersion  int            `json:"schema_version"`
	Time           time.Time      `json:"time"` // when the snapshot was taken
	Runtime        string         `json:"runtime"`
	RuntimeVersion string         `json:"runtime_version"`
	NRIVersion     string         `json:"nri_version"` // announced to plugins
	Started        bool           `json:"started"`     // between Start and Stop
	Settings       StatusSettings `json:"settings"`
	// Plugins are the active plugins in dispatch order.
	Plugins []PluginStatus `json:"plugins"`
	// Joining are the connections and plugins still in their handshake.
	Joining []JoiningPlugin `json:"joining"`
	// RecentChanges are the last plugin changes (at most
	// MaxRecentChanges), oldest first, as WithPluginChanges reports them,
	// but for the refused connections.
	RecentChanges []PluginChange `json:"recent_changes"`
	// RefusedConnections are the external connections that failed before
	// or at registration, kept apart from RecentChanges.
	RefusedConnections RefusedConnections `json:"refused_connections"`
	// Deprecations is what Adaptation.Deprecations returns.
	Deprecations []PluginDeprecation `json:"deprecations"`
	// ContainerRecords counts the containers whose record is kept (see
	// Adaptation.ContainerRecord).
	ContainerRecords int `json:"container_records"`
	// Readiness is what Adaptation.Readiness returns: whether the
	// node-level required plugins are active.
	Readiness Readiness `json:"readiness"`
	// DefaultValidatorWouldReject counts the creations the default
	// validator, run dry (default_validator.dry_run), would have rejected.
	DefaultValidatorWouldReject uint64 `json:"default_validator_would_reject,omitempty"`
}

// StatusSettings are the effective settings, defaults filled in.
type StatusSettings struct {
	PluginPath       string `json:"plugin_path"` // "" when pre-installed plugins are off
	PluginConfigPath string `json:"plugin_config_path"`
	// SocketPath is where external plugins connect; "" when external
	// connections are disabled.
	SocketPath           string        `json:"socket_path"`
	RegistrationTimeout  Duration      `json:"registration_timeout"`
	RequestTimeout       Duration      `json:"request_timeout"`
	SyncTimeout          Duration      `json:"sync_timeout"`
	DefaultFailurePolicy FailurePolicy `json:"default_failure_policy"`
	DefaultValidator     bool          `json:"default_validator"` // the default validator is on
	// ContainerRecords is how many containers' records are kept; 0: none.
	ContainerRecords int `json:"container_records"`
	// StatusSocket is the status endpoint's path; "" when it is off.
	StatusSocket string `json:"status_socket"`
	// PluginSettings are the operator's per-plugin settings, by key
	// (plugin_settings); each plugin's effective values are in Plugins.
	PluginSettings map[string]PluginSettings `json:"plugin_settings,omitempty"`
	// EventBudget is NRI's share of one setup event; 0: none.
	EventBudget     Duration    `json:"event_budget"`
	DeadlineReserve Duration    `json:"deadline_reserve"`
	BudgetCheck     BudgetCheck `json:"budget_check"`
	// PluginReadiness is the readiness gate (plugin_readiness); nil when
	// its wait is 0 (off).
	PluginReadiness *ReadinessConfig `json:"plugin_readiness,omitempty"`
	// ObserverQueue bounds the events waiting for each observer.
	ObserverQueue int `json:"observer_queue"`
	// DefaultValidatorDryRun: the default validator runs dry.
	DefaultValidatorDryRun bool `json:"default_validator_dry_run,omitempty"`
	// ExternalPlugins says which names may register from the socket.
	ExternalPlugins ExternalPlugins `json:"external_plugins"`
	// PeerIdentity: the runtime tells the pod of a process
	// (WithPeerIdentity), which names bound to pods need.
	PeerIdentity bool `json:"peer_identity"`
}

// PluginStatus is one active plugin: what Plugins says of it (its effective
// request timeout and failure policy included), and how its calls went. Its counters belong to this instance: one that replaces it
// starts at zero, and the old one's leaving is in RecentChanges.
type PluginStatus struct {
	PluginInfo
	JoinedAt time.Time `json:"joined_at"`
	// LastError is its last failed call, nil if none failed. A call the
	// event's deadline cut short is not the plugin's failure and does not
	// replace it.
	LastError *PluginLastError `json:"last_error,omitempty"`
	// Calls are its calls per event, in event order; events it was never
	// called for are left out.
	Calls []EventCalls `json:"calls"`
	// Queue is its queue, when it is an observer or a validator run dry.
	Queue *QueueStatus `json:"queue,omitempty"`
	// DryRun counts its validations run dry; nil when it runs none.
	DryRun *DryRunStatus `json:"dry_run,omitempty"`
}

// PluginLastError is a plugin's last failed call.
type PluginLastError struct {
	Event   string  `json:"event"`
	Outcome Outcome `json:"outcome"`
	// Error is the error's text, cut to 512 bytes (then ending in
	// " [cut]"), with control and other non-printable characters and
	// invalid UTF-8 written as Go escapes (`\n`, `\x1b`).
	Error string    `json:"error"`
	Time  time.Time `json:"time"`
}

// EventCalls counts one plugin's calls of one event. Total, Outcomes and
// Latency count the calls made, a call the event's deadline cut short
// included (outcome canceled); NotCalled counts apart the calls the
// event's deadline left unmade.
type EventCalls struct {
	Event string `json:"event"` // as api.Event.Name() names it
	Total uint64 `json:"total"`
	// Outcomes counts the calls by outcome; outcomes that did not occur
	// are left out.
	Outcomes map[Outcome]uint64 `json:"outcomes"`
	Latency  LatencyHistogram   `json:"latency"`
	// NotCalled counts the events it took that it was not called for
	// because the event's deadline had been reached: its turn came after
	// the deadline, the event began after it, or a mandatory plugin's miss
	// of it failed the event before its turn. 0 is left out.
	NotCalled uint64 `json:"not_called,omitempty"`
}

// LatencyHistogram is the latency of one plugin's calls of one event, from
// the call's start (waiting for the plugin's earlier call included) to its
// end, whatever the outcome.
type LatencyHistogram struct {
	// Buckets are fixed, the same for every plugin and event: 500µs, 1ms,
	// 2.5ms, 5ms, 10ms, 25ms, 50ms, 100ms, 250ms, 500ms, 1s, 2.5s, 5s, 10s,
	// 30s and +Inf. Each call is counted in the first bucket whose bound is
	// at least its latency, so the counts (not cumulative) add up to Total.
	Buckets []LatencyBucket `json:"buckets"`
	Sum     Duration        `json:"sum"`
	Max     Duration        `json:"max"`
}

// LatencyBucket is one bucket of a LatencyHistogram.
type LatencyBucket struct {
	UpperBound string `json:"le"` // "500µs", ..., "30s", "+Inf"
	Count      uint64 `json:"count"`
}

// JoiningPlugin is a connection or plugin in its handshake: it has not
// joined yet, nor failed.
type JoiningPlugin struct {
	// Plugin is "NN-name" once known (at once for a pre-installed plugin),
	// "unregistered" for an external connection before it registered.
	Plugin string `json:"plugin"`
	PID    int    `json:"pid,omitempty"`
	// Phase is "register", "configure" or "synchronize".
	Phase string    `json:"phase"`
	Since time.Time `json:"since"` // when the handshake began
}

// MaxRecentChanges is how many plugin changes Status keeps: the last ones,
// older ones are dropped. External connections that failed before or at
// registration, which any local client can cause at will, are kept apart
// (MaxRecentRefused of them), so that a flood of them cannot push a
// plugin's departure out.
const (
	MaxRecentChanges = 48
	MaxRecentRefused = 8
)

// RefusedConnections are the external connections that failed before or at
// registration.
type RefusedConnections struct {
	Total uint64 `json:"total"` // since New
	// Last are the last MaxRecentRefused of them, oldest first.
	Last []PluginChange `json:"last"`
}

// Status returns a snapshot of the adaptation. It may be called at any
// time, from any goroutine, before Start and after Stop; it takes no lock
// an event holds, so it never waits for a plugin.
func (a *Adaptation) Status() Status {
	st := Status{
		SchemaVersion:    StatusSchemaVersion,
		Time:             time.Now(),
		Runtime:          a.runtimeName,
		RuntimeVersion:   a.runtimeVersion,
		NRIVersion:       a.opts.nriVersion,
		Started:          a.relay.Started(),
		Settings:         a.statusSettings(),
		Plugins:          []PluginStatus{},
		Joining:          joiningPlugins(a.joining.List()),
		Deprecations:     a.Deprecations(),
		ContainerRecords: a.records.Len(),
		Readiness:        a.Readiness(),

		DefaultValidatorWouldReject: a.relay.DefaultValidatorWouldReject(),
	}
	changes, refused := a.changes.recent.List()
	st.RecentChanges = pluginChanges(changes)
	st.RefusedConnections = RefusedConnections{Total: refused.Total, Last: pluginChanges(refused.Last)}
	for _, p := range a.relay.Plugins() {
		ps := pluginStatus(pluginInfo(p), p.Stats.Snapshot())
		rolloutStatus(&ps, p.Rollout)
		st.Plugins = append(st.Plugins, ps)
	}
	return st
}

func (a *Adaptation) statusSettings() StatusSettings {
	o := &a.opts
	s := StatusSettings{
		PluginPath:           o.pluginPath,
		PluginConfigPath:     o.pluginConfigPath,
		SocketPath:           o.socketPath,
		RegistrationTimeout:  Duration(o.registration),
		RequestTimeout:       Duration(o.request),
		SyncTimeout:          Duration(o.sync),
		DefaultFailurePolicy: o.failurePolicy,
		DefaultValidator:     o.defaultValidator != nil,
		ContainerRecords:     o.containerRecords,
		StatusSocket:         o.statusSocket,
		EventBudget:          Duration(o.eventBudget),
		DeadlineReserve:      Duration(o.deadlineReserve),
		BudgetCheck:          o.budgetCheck,
		ObserverQueue:        o.observerQueue,
		ExternalPlugins:      o.externalPlugins,
		PeerIdentity:         o.peerIdentity != nil,
	}
	s.DefaultValidatorDryRun = o.defaultValidator != nil && o.defaultValidator.DryRun()
	if o.disableConnect {
		s.SocketPath = ""
	}
	s.PluginSettings = copySettings(o.pluginSettings)
	if r := o.readiness; r.wait > 0 {
		s.PluginReadiness = &ReadinessConfig{Wait: Duration(r.wait), OnTimeout: r.onTimeout, ExemptNamespaces: slices.Clone(r.exempt),
			SetupReserve: Duration(r.setupReserve)}
	}
	return s
}

// copySettings copies the operator's per-plugin settings, so that a Status
// shares nothing a caller could change under the adaptation; nil if none.
func copySettings(in map[string]PluginSettings) map[string]PluginSettings {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]PluginSettings, len(in))
	for key, s := range in {
		if s.FailurePolicy != nil {
			fp := *s.FailurePolicy
			s.FailurePolicy = &fp
		}
		s.Filter = s.Filter.clone()
		s.Peer = s.Peer.clone()
		s.Allow = cloneAllow(s.Allow)
		out[key] = s
	}
	return out
}
