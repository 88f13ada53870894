// SPDX-License-Identifier: Apache-2.0

// Config: what the relay is told by the front door, and the seams it calls back through.

package relay

import (
	"context"
	"time"

	"github.com/containerd/ttrpc"
	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/accept"
	"github.com/nrikit/nrikit/internal/admission"
	"github.com/nrikit/nrikit/internal/filter"
	"github.com/nrikit/nrikit/internal/identity"
	"github.com/nrikit/nrikit/internal/launch"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/readiness"
	"github.com/nrikit/nrikit/internal/records"
	"github.com/nrikit/nrikit/internal/scope"
	"github.com/nrikit/nrikit/internal/status"
)

// SyncFn lists the runtime's pods and containers and hands them to cb
// (adaptation.SyncFn documents the contract).
type SyncFn func(ctx context.Context, cb SyncCB) error

// SyncCB synchronizes one plugin with the given state and returns the
// plugin's updates for the runtime to apply.
type SyncCB func(ctx context.Context, pods []*api.PodSandbox, ctrs []*api.Container) ([]*api.ContainerUpdate, error)

// UpdateFn applies container updates that a plugin asked for on its own, and
// returns those that failed.
type UpdateFn func(ctx context.Context, updates []*api.ContainerUpdate) ([]*api.ContainerUpdate, error)

// Config is everything the relay is told, with every default already
// filled in by its caller.
type Config struct {
	RuntimeName, RuntimeVersion string
	NRIVersion                  string // announced to plugins in Configure
	Sync                        SyncFn
	Update                      UpdateFn

	PluginPath       string // "": no pre-installed plugins
	PluginConfigPath string
	SocketPath       string // "": no external connections
	SocketGroup      *accept.Group
	ClientOpts       []ttrpc.ClientOpts
	ServerOpts       []ttrpc.ServerOpt
	Builtins         []Builtin
	PluginOutput     launch.OutputMode
	WASM             WASMConfig

	Registration, Request, SyncTimeout time.Duration
	FailurePolicy                      nri.FailurePolicy // of plugins that declare none
	// Settings are the operator's per plugin, keyed by "NN-name" or by
	// bare "name".
	Settings map[string]Settings
	// ConfiguredOnly lets only the names Settings has an entry for register
	// from the socket (external_plugins = "configured").
	ConfiguredOnly bool
	// PeerIdentity, the runtime's, tells the pod a process runs in, for
	// names bound to pods; nil: pods are not known.
	PeerIdentity    identity.Resolver
	EventBudget     time.Duration // 0: none
	DeadlineReserve time.Duration
	BudgetCheck     admission.BudgetCheck
	// Registering bounds the external connections registering at once.
	Registering      admission.Bounds
	DefaultValidator *validator.DefaultValidator // nil: off
	Readiness        readiness.Config
	// ObserverQueue bounds the events queued for each observer (and each
	// validator run dry); 0: DefaultObserverQueue.
	ObserverQueue int

	Log *logrus.Entry
	// LogFromContext, when the runtime gave one, makes the entry of a line
	// about a call the runtime made.
	LogFromContext func(context.Context) *logrus.Entry

	// The seams to the rest of nrikit and to the runtime.
	Metrics  Metrics
	Changes  func(nri.Change) error // each change in the set of plugins; an error is a panic of the runtime's callback
	Records  *records.Store         // who changed which container
	Joining  *status.Joining        // the handshakes in progress
	Endpoint Endpoint               // nil: none
	// Deprecated is told of each plugin's deprecated behaviour, once per
	// plugin and event; nil: only logged.
	Deprecated func(ctx context.Context, plugin, details string)
	// Observe, if set, sees every call to a plugin.
	Observe func(Call)
	// PluginError makes the error of a plugin's failure of an event, or of
	// a phase of its joining, as the runtime gets it.
	PluginError func(plugin, op string, err error) error
}

// Settings are the operator's settings for one plugin; zero fields leave
// the plugin's own or the runtime's default.
type Settings struct {
	RequestTimeout time.Duration
	FailurePolicy  *nri.FailurePolicy
	// Observe makes the plugin an observer (delivery = "observe"), DryRun
	// runs its validations dry (validation = "dry-run"), and Filter is its
	// scope of pods (nil: every pod); see rollout.go.
	Observe, DryRun bool
	Filter          *filter.Selector
	// Peer binds the name to peers: only a connection from one that
	// matches may register under it from the socket; nil: any.
	Peer *identity.Rules
	// Allow is what the plugin may change; nil: everything.
	Allow *scope.Set
}

// Builtin is an in-process plugin the runtime links in.
type Builtin struct {
	Index, Name, Config string
	Handler             api.PluginService
	// Filter is its scope of pods unless the operator's settings give one;
	// nil: every pod.
	Filter *filter.Selector
}

// WASMConfig configures the WASM plugins of the plugin path.
type WASMConfig struct {
	MemoryLimit uint64
	CacheDir    string
}

// Metrics is what the relay reports of its plugin calls. It is called on
// the event path: it must be fast and safe for concurrent use.
type Metrics interface {
	// PluginCallFailed is told why a call that did not end ok failed, just
	// before PluginInvoked reports it.
	PluginCallFailed(plugin string, ev api.Event, o nri.Outcome, err error)
	PluginInvoked(plugin string, ev api.Event, o nri.Outcome, latency time.Duration)
	AdjustmentsReturned(plugin string, ev api.Event, adjusted, updates, evictions int)
	PluginCount(n int)
}

// Endpoint is a service of the caller's that runs while the relay does,
// such as the status socket: opened when Start begins, before any plugin is
// launched, and closed by Stop.
type Endpoint interface {
	Open() error
	Close()
}

// NoMetrics reports nothing: the Metrics of a runtime that wants none.
type NoMetrics struct{}

func (NoMetrics) PluginCallFailed(string, api.Event, nri.Outcome, error)      {}
func (NoMetrics) PluginInvoked(string, api.Event, nri.Outcome, time.Duration) {}
func (NoMetrics) AdjustmentsReturned(string, api.Event, int, int, int)        {}
func (NoMetrics) PluginCount(int)                                             {}
