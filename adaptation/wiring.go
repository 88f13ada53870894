// SPDX-License-Identifier: Apache-2.0

// The relay's configuration from the options: the settings in its form, and the seams back to the runtime.

package adaptation

import (
	"context"

	"github.com/nrikit/nrikit/internal/admission"
	"github.com/nrikit/nrikit/internal/launch"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/relay"
)

// relayConfig is the relay's configuration: the options in its form, and
// the seams through which it reaches the runtime's callbacks (its SyncFn,
// UpdateFn, Metrics, recorder, observers) and the front door's components
// (the records, the handshakes in progress, the change feed, the status
// socket).
func (a *Adaptation) relayConfig(sync SyncFn, update UpdateFn) relay.Config {
	o := &a.opts
	cfg := relay.Config{
		RuntimeName:      a.runtimeName,
		RuntimeVersion:   a.runtimeVersion,
		NRIVersion:       o.nriVersion,
		PluginPath:       o.pluginPath,
		PluginConfigPath: o.pluginConfigPath,
		SocketPath:       o.socketPath,
		SocketGroup:      o.socketGroup,
		ClientOpts:       o.clientOpts,
		ServerOpts:       o.serverOpts,
		Builtins:         relayBuiltins(o.builtins),
		PluginOutput:     launch.OutputMode(o.pluginOutput),
		WASM:             relay.WASMConfig{MemoryLimit: o.wasm.memoryLimit, CacheDir: o.wasm.cacheDir},
		Registration:     o.registration,
		Request:          o.request,
		SyncTimeout:      o.sync,
		FailurePolicy:    nri.FailurePolicy(o.failurePolicy),
		Settings:         relaySettings(o.pluginSettings),
		ConfiguredOnly:   o.externalPlugins == ExternalConfigured,
		PeerIdentity:     o.peerIdentity,
		EventBudget:      o.eventBudget,
		DeadlineReserve:  o.deadlineReserve,
		BudgetCheck:      admission.BudgetCheck(o.budgetCheck),
		Registering:      registeringBounds,
		DefaultValidator: o.defaultValidator,
		Readiness:        o.readinessConfig(),
		ObserverQueue:    o.observerQueue,
		Log:              o.logger,
		LogFromContext:   o.logFromContext,
		Metrics:          relay.NoMetrics{},
		Changes:          a.changes.send,
		Records:          a.records,
		Joining:          &a.joining,
		Endpoint:         &a.status,
		PluginError:      pluginError,
	}
	if o.disableConnect {
		cfg.SocketPath = ""
	}
	if sync != nil {
		cfg.Sync = func(ctx context.Context, cb relay.SyncCB) error { return sync(ctx, SyncCB(cb)) }
	}
	if update != nil {
		cfg.Update = relay.UpdateFn(update)
	}
	if _, none := o.metrics.(noopMetrics); !none {
		cfg.Metrics = newRuntimeMetrics(o.metrics, o.logger)
	}
	if r := o.recorder; r != nil {
		cfg.Deprecated = func(ctx context.Context, plugin, details string) {
			r.PluginWarning(ctx, DeprecatedStateChange, plugin, details)
		}
	}
	if fn := o.callObserver; fn != nil {
		cfg.Observe = func(c relay.Call) {
			fn(PluginCall{Plugin: c.Plugin, Method: c.Method, Request: c.Request, Response: c.Response, Err: c.Err})
		}
	}
	return cfg
}

// relayBuiltins is the built-in plugins in the relay's form.
func relayBuiltins(in []BuiltinPlugin) []relay.Builtin {
	out := make([]relay.Builtin, len(in))
	for i, b := range in {
		out[i] = relay.Builtin{Index: b.Index, Name: b.Name, Config: b.Config, Handler: b.Handler}
		out[i].Filter, _ = b.Filter.selector() // checked by WithBuiltinPlugins
	}
	return out
}
