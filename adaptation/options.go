// SPDX-License-Identifier: Apache-2.0

// Option and the With* options.

package adaptation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/containerd/ttrpc"
	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/internal/accept"
	"github.com/nrikit/nrikit/internal/identity"
)

// Defaults of every setting; a zero Config and no options give these.
const (
	DefaultPluginPath          = "/opt/nri/plugins"
	DefaultPluginConfigPath    = "/etc/nri/conf.d"
	DefaultSocketPath          = "/var/run/nri/nri.sock"
	DefaultRegistrationTimeout = 5 * time.Second
	DefaultRequestTimeout      = 2 * time.Second
	// DefaultSyncTimeout bounds each Synchronize message, not the whole
	// exchange: a big node is split into many messages, and a healthy plugin
	// that keeps answering is never dropped for the node's size.
	DefaultSyncTimeout = 10 * time.Second
	// DefaultShutdownGrace bounds Stop when its context has no deadline.
	DefaultShutdownGrace = 5 * time.Second
)

// Option changes one setting of an Adaptation.
type Option func(*options) error

type options struct {
	pluginPath       string
	pluginConfigPath string
	socketPath       string
	socketGroup      *accept.Group // nil: the socket is its owner's alone
	disableConnect   bool
	registration     time.Duration
	request          time.Duration
	sync             time.Duration
	failurePolicy    FailurePolicy
	logger           *logrus.Entry
	logFromContext   func(context.Context) *logrus.Entry // nil: lines carry only logger's fields
	changes          func(PluginChange)
	metrics          Metrics
	recorder         DeprecationRecorder
	builtins         []BuiltinPlugin
	clientOpts       []ttrpc.ClientOpts
	serverOpts       []ttrpc.ServerOpt
	nriVersion       string
	defaultValidator *validator.DefaultValidator // nil: off
	// requirements is the default_validator table's required_plugins and
	// tolerate annotation, enabled or not, for the readiness gate; nil:
	// no table.
	requirements     *validator.DefaultValidatorConfig
	readiness        readinessOptions
	readinessChanges func(Readiness)
	wasm             wasmOptions
	callObserver     func(PluginCall) // nil: plugin calls are not wrapped
	pluginOutput     PluginOutput
	containerRecords int                       // containers whose record is kept; 0: none
	statusSocket     string                    // the status endpoint's path; "": off
	pluginSettings   map[string]PluginSettings // by "NN-name" or "name"
	eventBudget      time.Duration             // 0: none
	deadlineReserve  time.Duration
	budgetCheck      BudgetCheck
	observerQueue    int               // events waiting per observer
	peerIdentity     identity.Resolver // nil: pods are not known
	externalPlugins  ExternalPlugins
}

func defaultOptions() options {
	return options{
		pluginPath:       DefaultPluginPath,
		pluginConfigPath: DefaultPluginConfigPath,
		socketPath:       DefaultSocketPath,
		registration:     DefaultRegistrationTimeout,
		request:          DefaultRequestTimeout,
		sync:             DefaultSyncTimeout,
		logger:           logrus.NewEntry(logrus.StandardLogger()),
		metrics:          noopMetrics{},
		nriVersion:       Version,
		wasm:             wasmOptions{memoryLimit: DefaultWASMMemoryLimit},
		deadlineReserve:  DefaultDeadlineReserve,
		budgetCheck:      BudgetWarn,
		observerQueue:    DefaultObserverQueue,
		containerRecords: DefaultContainerRecords,
		externalPlugins:  ExternalAny,
	}
}

// WithPluginPath sets the directory of pre-installed plugins; "" disables them.
func WithPluginPath(path string) Option {
	return func(o *options) error { o.pluginPath = path; return nil }
}

// WithPluginConfigPath sets the directory of pre-installed plugins' configs.
func WithPluginConfigPath(path string) Option {
	return func(o *options) error { o.pluginConfigPath = path; return nil }
}

// WithSocketPath sets where external plugins connect. Start removes a
// stale socket or an empty directory found there, and refuses anything
// else with ErrBadSocketPath.
func WithSocketPath(path string) Option {
	return func(o *options) error {
		if path == "" {
			return errors.New("nrikit: empty socket path (use WithDisabledExternalConnections)")
		}
		o.socketPath = path
		return nil
	}
}

// WithDisabledExternalConnections keeps the runtime from listening: only
// pre-installed and built-in plugins run.
func WithDisabledExternalConnections() Option {
	return func(o *options) error { o.disableConnect = true; return nil }
}

// WithRegistrationTimeout bounds how long a connected plugin may take to
// register, and is sent to plugins in Configure. It must be within
// MinPluginTimeout and MaxPluginTimeout.
func WithRegistrationTimeout(d time.Duration) Option {
	return pluginTimeout("plugin_registration_timeout", d, func(o *options) { o.registration = d })
}

// WithRequestTimeout bounds each call to a plugin, and is sent to plugins in
// Configure. It must be within MinPluginTimeout and MaxPluginTimeout.
func WithRequestTimeout(d time.Duration) Option {
	return pluginTimeout("plugin_request_timeout", d, func(o *options) { o.request = d })
}

// WithSyncTimeout bounds each Synchronize message sent to a plugin. Events
// wait while a plugin synchronizes, so it also bounds how long a plugin that
// hangs in Synchronize holds them back. It must be within MinPluginTimeout
// and MaxPluginTimeout.
func WithSyncTimeout(d time.Duration) Option {
	return pluginTimeout("plugin_sync_timeout", d, func(o *options) { o.sync = d })
}

// The bounds of every timeout of a plugin's calls, the runtime's and the
// operator's per plugin. Plugins are told their timeouts in milliseconds,
// so that less than one reads as none; and an hour is beyond what any
// event may wait for a plugin.
const (
	MinPluginTimeout = time.Millisecond
	MaxPluginTimeout = time.Hour
)

// checkPluginTimeout refuses a timeout outside MinPluginTimeout and
// MaxPluginTimeout, naming its config key.
func checkPluginTimeout(key string, d time.Duration) error {
	switch {
	case d <= 0:
		return fmt.Errorf("nrikit: %s: must be positive, got %v", key, d)
	case d < MinPluginTimeout:
		return fmt.Errorf("nrikit: %s: %v is below %v", key, d, MinPluginTimeout)
	case d > MaxPluginTimeout:
		return fmt.Errorf("nrikit: %s: %v is beyond %v", key, d, MaxPluginTimeout)
	}
	return nil
}

func pluginTimeout(key string, d time.Duration, set func(*options)) Option {
	return func(o *options) error {
		if err := checkPluginTimeout(key, d); err != nil {
			return err
		}
		set(o)
		return nil
	}
}

// WithDefaultFailurePolicy sets the failure policy of plugins that do not
// declare their own in ConfigureResponse.
func WithDefaultFailurePolicy(p FailurePolicy) Option {
	return func(o *options) error { o.failurePolicy = p; return nil }
}

// WithLogger sets where nrikit logs; every line carries the entry's fields.
// Lines about a call the runtime made carry its context (Entry.Context).
// It replaces WithContextLogger and WithLoggerFromContext given before it.
func WithLogger(l *logrus.Entry) Option {
	return func(o *options) error {
		if l == nil {
			return errors.New("nrikit: nil logger")
		}
		o.logger, o.logFromContext = l, nil
		return nil
	}
}

// WithPluginChanges calls fn whenever a plugin joins, leaves, fails to join
// or is skipped at Start. Calls come one at a time, from nrikit's own
// goroutines, some of them on the event path: fn must return quickly and must
// not call the Adaptation's event methods or Stop.
func WithPluginChanges(fn func(PluginChange)) Option {
	return func(o *options) error {
		if fn == nil {
			return errors.New("nrikit: nil plugin change callback")
		}
		o.changes = fn
		return nil
	}
}

// WithMetrics sets the metrics sink.
func WithMetrics(m Metrics) Option {
	return func(o *options) error {
		if m == nil {
			return errors.New("nrikit: nil metrics")
		}
		o.metrics = m
		return nil
	}
}

// WithDeprecationRecorder sets where deprecated plugin behaviour is reported,
// in addition to the log.
func WithDeprecationRecorder(r DeprecationRecorder) Option {
	return func(o *options) error { o.recorder = r; return nil }
}

// WithBuiltinPlugins adds in-process plugins, ordered with the others.
func WithBuiltinPlugins(plugins ...BuiltinPlugin) Option {
	return func(o *options) error {
		for _, b := range plugins {
			if err := b.validate(); err != nil {
				return err
			}
		}
		o.builtins = append(o.builtins, plugins...)
		return nil
	}
}

// WithTTRPCOptions passes options to the ttrpc client and server of every
// socket plugin connection.
func WithTTRPCOptions(clientOpts []ttrpc.ClientOpts, serverOpts []ttrpc.ServerOpt) Option {
	return func(o *options) error {
		o.clientOpts = append(o.clientOpts, clientOpts...)
		o.serverOpts = append(o.serverOpts, serverOpts...)
		return nil
	}
}

// WithSocketGroup lets the members of group (a name, or a numeric gid)
// connect to the socket: it is made 0660 and its directory 0750, both owned
// by that group. Without it the socket is 0600 in a 0700 directory. A
// directory that exists already is changed only when it is the runtime's
// own 0700 one (as nrikit creates it); any other is left as the operator
// made it. Directories created above it are the group's too, and Start
// fails, naming it, when one above that the group's members cannot search
// is in the way. An unknown group, or a gid the kernel cannot store (beyond
// 4294967294), fails New.
func WithSocketGroup(group string) Option {
	return func(o *options) error {
		g, err := accept.LookupGroup(group)
		if err != nil {
			return err
		}
		o.socketGroup = g
		return nil
	}
}

// WithDefaultValidator turns on the default validator with a copy of the
// given configuration (see package validator); nil, or Enable false, leaves
// it off, and an empty name in RequiredPlugins is refused. It checks every
// container's merged adjustment after all plugins' CreateContainer, beside
// the validator plugins. It is part of the runtime, not a plugin: it is
// never dropped nor timed out, and plugins do not see it.
func WithDefaultValidator(cfg *validator.DefaultValidatorConfig) Option {
	return func(o *options) error {
		o.requirements = requirementsOf(cfg)
		if cfg == nil || !cfg.Enable {
			o.defaultValidator = nil
			return nil
		}
		// A name that matches no plugin would fail every creation.
		if slices.Contains(cfg.RequiredPlugins, "") {
			return errors.New("nrikit: default validator: empty name in required_plugins")
		}
		o.defaultValidator = validator.NewDefaultValidator(cfg)
		return nil
	}
}
