// SPDX-License-Identifier: Apache-2.0

// The Adaptation type and its public life cycle: New, Start, Stop, Plugins, Deprecations,
// RestartPlugin; the components it holds, and PluginInfo.

package adaptation

import (
	"context"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/records"
	"github.com/nrikit/nrikit/internal/relay"
	"github.com/nrikit/nrikit/internal/status"
)

// Version is the NRI version nrikit announces to plugins in Configure.
const Version = "v0.12.5"

// SyncFn lists the runtime's pods and containers and hands them to cb. It is
// called once for every plugin that joins, and on its own when nrikit's
// lifecycle records outgrew the last listing (see below). Pods still being
// created may be listed with state POD_SANDBOX_UNKNOWN.
//
// It is called holding no lock of nrikit's, so it may take the lock the
// runtime holds while calling the event methods, and list under it or
// without any lock. Events wait from the moment cb is called until the
// plugin has joined; setup events whose caller's context ends meanwhile give
// up.
//
// SyncFn should call cb once before it returns: if it returns nil without
// calling it, the plugin gets an empty snapshot, and a second call is refused.
// It must not call [Adaptation.BlockPluginSync], nor the Adaptation's event
// methods while cb runs or after it returned.
//
// The lists are the truth for what the runtime had before the plugin
// connected. nrikit reconciles them with what it relayed since (a runtime
// that lists without a lock lets events through): pods and containers
// removed meanwhile are left out of the snapshot; containers whose creation
// finished meanwhile are added when their pod is in it, announced before
// them; pods created meanwhile get their RunPodSandbox right after the
// snapshot; and stops relayed meanwhile of what the snapshot lists as
// running follow it, in the order they happened.
//
// Anything older that the lists leave out is not told to the joining
// plugin: a pod or container the runtime dropped without relaying its
// teardown, or a creation it gave up after the plugins adjusted it. A pod
// whose RunPodSandbox went out before the plugin connected but that the
// lists leave out (a runtime that stores it only after the call) reaches
// the plugin by its RunPodSandbox right before the next event the runtime
// relays for it. A container has no such second chance: a runtime that
// stores a container only after CreateContainer returns should hold
// [Adaptation.BlockPluginSync] until it is stored, as containerd does, or
// list it.
//
// Records the lists leave out twice are forgotten; the last 1,024 are set
// aside, so that an event the runtime still relays for one reaches the
// plugins that knew it. When no plugin joins, nrikit calls SyncFn on its own
// once its records outgrow the last listing by as many as the runtime has,
// and at least 1,024; cb then sends nothing and returns no updates. So
// lifecycle memory is bounded by what the runtime has, even if it relays no
// teardown event at all.
//
// A panic in SyncFn is not recovered, unlike one in code a plugin steers:
// the runtime may hold its own lock there, and carrying on could leave every
// later call waiting for it.
type SyncFn func(ctx context.Context, cb SyncCB) error

// SyncCB synchronizes one plugin with the given state and returns the
// plugin's updates for the runtime to apply. It must be called once.
type SyncCB func(ctx context.Context, pods []*api.PodSandbox, ctrs []*api.Container) ([]*api.ContainerUpdate, error)

// UpdateFn applies container updates that a plugin asked for on its own, and
// returns those that failed. nrikit calls it holding no lock of its own, so
// it may take the lock the runtime holds while calling the event methods.
// A panic in UpdateFn is not recovered, for the same reason as in [SyncFn].
type UpdateFn func(ctx context.Context, updates []*api.ContainerUpdate) ([]*api.ContainerUpdate, error)

// Adaptation is the runtime side of NRI. Create it with New.
type Adaptation struct {
	// A front door over nrikit's components: the plugins, their registry
	// and the relay of each event are internal/relay's; the records of who
	// changed which container internal/records'; the handshakes in progress
	// and the recent changes internal/status'.
	runtimeName    string
	runtimeVersion string
	opts           options

	relay   *relay.Relay
	records *records.Store // who changed which container (ContainerRecord)
	joining status.Joining // plugins in their handshake, for Status
	changes changeFeed     // to the runtime's callback, and the recent ones for Status
	status  statusEndpoint // the status socket (WithStatusSocket)
}

// New creates an Adaptation. runtimeName and runtimeVersion are what
// plugins are told in Configure. sync and update may be nil: plugins then
// get an empty snapshot, and their unsolicited updates are all reported
// failed.
func New(runtimeName, runtimeVersion string, sync SyncFn, update UpdateFn, opts ...Option) (*Adaptation, error) {
	o := defaultOptions()
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	if err := o.checkBudget(); err != nil {
		return nil, err
	}
	if err := o.checkRollout(); err != nil {
		return nil, err
	}
	a := &Adaptation{
		runtimeName:    runtimeName,
		runtimeVersion: runtimeVersion,
		opts:           o,
		records:        records.New(o.containerRecords),
	}
	a.changes.fn, a.changes.log = o.changes, o.logger
	a.status.a = a
	a.relay = relay.New(a.relayConfig(sync, update))
	return a, nil
}

// Start connects the built-in and pre-installed plugins and, unless
// disabled, listens for external ones. It returns once the built-in and
// pre-installed plugins have joined or been dropped. Only ctx's values are
// used: its end does not stop NRI, Stop does. Stop may be called while
// Start runs: it ends the plugins' handshakes, and Start returns
// ErrStartInterrupted.
func (a *Adaptation) Start(ctx context.Context) error { return a.relay.Start(ctx) }

// Reasons nrikit gives plugins in ShutdownRequest, and in the PluginChange
// of a plugin that leaves for them.
const (
	ReasonRuntimeStopping = "runtime shutting down"
	ReasonReplaced        = "replaced" // by a new instance with the same index and name
)

// Stop tells every plugin to shut down, giving each the request timeout to
// acknowledge, then closes its connection. Launched processes then get
// SIGTERM, and SIGKILL if still running when ctx ends (DefaultShutdownGrace
// from now if ctx has no deadline). Stop returns by then even if a plugin
// that was joining is still inside the runtime's SyncFn (which may wait for
// a lock Stop's caller holds, as containerd's does): it returns
// ErrStopAbandoned, and that plugin is dropped without joining once SyncFn
// returns. The same holds for a plugin's UpdateContainers inside the
// runtime's UpdateFn: Stop waits for it within ctx, and once Stop began no
// new one is handed to UpdateFn; and for the runtime's ReadinessChanges
// callback (WithReadinessChanges). Start may be called again.
func (a *Adaptation) Stop(ctx context.Context) error { return a.relay.Stop(ctx) }

// PluginInfo describes one active plugin, for operators.
type PluginInfo struct {
	Plugin   string `json:"plugin"`
	Index    string `json:"index"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Revision string `json:"revision,omitempty"` // RevisionV1alpha1 or RevisionV1beta1; empty for builtin plugins
	// Events names the subscribed events as api.Event.Name() does
	// ("CreateContainer"), in event order; every event when the plugin
	// subscribed to all.
	Events        []string      `json:"events"`
	PID           int           `json:"pid,omitempty"`
	FailurePolicy FailurePolicy `json:"failure_policy"`
	StateChange   bool          `json:"state_change"`
	// RequestTimeout bounds each call to the plugin. RequestTimeoutFrom and
	// FailurePolicyFrom say where it and FailurePolicy came from:
	// FromOperator, FromPlugin or FromDefault.
	RequestTimeout     Duration `json:"request_timeout"`
	RequestTimeoutFrom string   `json:"request_timeout_from"`
	FailurePolicyFrom  string   `json:"failure_policy_from"`
	// Delivery and Validation are DeliveryObserve and ValidationDryRun
	// for an observer and a validator run dry, empty otherwise; Filter is
	// its scope of pods, nil for every pod (the operator's, or a built-in
	// plugin's own).
	Delivery   Delivery      `json:"delivery,omitempty"`
	Validation Validation    `json:"validation,omitempty"`
	Filter     *PluginFilter `json:"filter,omitempty"`
	// SettingsKey is the plugin_settings key that applies to it ("NN-name"
	// or its bare name), where the operator's values above and below came
	// from; "" when none does.
	SettingsKey string `json:"settings_key,omitempty"`
	// Peer is who holds an external plugin's connection; nil for the
	// runtime's own plugins.
	Peer *PluginPeer `json:"peer,omitempty"`
	// Allow is what the plugin may change, in AllowClasses' order, from
	// plugin_settings under SettingsKey; nil: everything (not limited),
	// empty: nothing.
	Allow []string `json:"allow,omitzero"`
}

// PluginPeer is the process at the other end of an external plugin's
// connection: the kernel's word when it connected (uid, gid, executable;
// the pid is PluginInfo.PID) and the runtime's (its pod), and the
// operator's binding of the name that it matched.
type PluginPeer struct {
	UID *uint32 `json:"uid,omitempty"` // nil: this OS does not tell
	GID *uint32 `json:"gid,omitempty"` // its effective group; nil: not told
	Exe string  `json:"exe,omitempty"` // its executable's path; "": not told
	// Pod is "namespace/name", from WithPeerIdentity, when the name's
	// rules needed it; "" otherwise.
	Pod string `json:"pod,omitempty"`
	// Rules are the operator's PeerRules of the name (plugin_settings,
	// under SettingsKey) that the process matched; nil: the name is not
	// bound, any process may hold it.
	Rules *PeerRules `json:"rules,omitempty"`
}

// Plugins lists the active plugins in dispatch order.
func (a *Adaptation) Plugins() []PluginInfo {
	var out []PluginInfo
	for _, p := range a.relay.Plugins() {
		out = append(out, pluginInfo(p))
	}
	return out
}

func pluginInfo(p relay.PluginInfo) PluginInfo {
	return PluginInfo{
		Plugin: p.Plugin, Index: p.Index, Name: p.Name, Kind: p.Kind, Revision: p.Revision,
		Events: p.Events, PID: p.PID, FailurePolicy: FailurePolicy(p.FailurePolicy), StateChange: p.StateChange,
		RequestTimeout: Duration(p.RequestTimeout), RequestTimeoutFrom: p.RequestTimeoutFrom, FailurePolicyFrom: p.FailurePolicyFrom,
		Delivery: delivery(p.Rollout.Observer), Validation: validation(p.Rollout.DryRun), Filter: pluginFilter(p.Rollout.Filter),
		SettingsKey: p.SettingsKey, Peer: pluginPeer(p.Peer, p.PeerRules), Allow: allowNames(p.Allow),
	}
}

// Deprecations lists the deprecated behaviour of the connected plugins.
func (a *Adaptation) Deprecations() []PluginDeprecation {
	ds := a.relay.Deprecations()
	out := make([]PluginDeprecation, 0, len(ds))
	for _, d := range ds {
		out = append(out, PluginDeprecation{Plugin: d.Plugin, Deprecation: DeprecatedStateChange, Events: d.Events, Since: d.Since})
	}
	return out
}

// Plugin kinds as PluginInfo.Kind reports them.
const (
	KindExternal     = "external"
	KindPreinstalled = "pre-installed"
	KindBuiltin      = "builtin"
	KindWASM         = "wasm"
)

// Protocol revisions, as PluginInfo.Revision and PluginChange.Revision
// report them.
const (
	// RevisionV1alpha1 is the released protocol (reference v0.11 .. v0.12).
	RevisionV1alpha1 = "v1alpha1"
	// RevisionV1beta1 is the proposed revision (the reference's open
	// "devel/api/v1beta1" pull request, as of its head of 2025-11-04).
	RevisionV1beta1 = "v1beta1"
)

// ReasonRestarted is the Shutdown reason, and the PluginChange reason, of a
// plugin that RestartPlugin restarts.
const ReasonRestarted = "restarted"

// RestartPlugin restarts the pre-installed plugin id (idx-name): it leaves
// the dispatch list, gets Shutdown(ReasonRestarted) and its process ends
// (SIGTERM, then SIGKILL when ctx ends), then it is launched again from the
// plugin path with its current config, as Start launches it. A
// pre-installed plugin that crashed or was dropped is launched again the
// same way. The new instance registers, is configured and synchronizes like
// any joining plugin: its snapshot holds the pods and containers alive
// then. No external plugin can take id meanwhile (ErrPluginIDTaken).
// RestartPlugin returns once the new instance has joined, or with why it did
// not (that is also reported as a PluginChange). External, builtin and WASM
// plugins cannot be restarted: nrikit did not start their processes. A
// plugin whose file is no longer in the plugin path is no longer installed:
// the error says so, and its ID is free for external plugins.
func (a *Adaptation) RestartPlugin(ctx context.Context, id string) error {
	return a.relay.RestartPlugin(ctx, id)
}
