// SPDX-License-Identifier: Apache-2.0

// Package relay is the core of the runtime side of NRI: the connected
// plugins, their registry, their joining and the relay of each of the
// runtime's events to them. These are one cycle of types (a plugin's
// handshake joins the registry, an event's fan-out drops a plugin from it,
// a joining plugin is caught up with the events it missed), so they live
// together, behind one type, [Relay], built from a [Config].
//
// # What it owns
//
//   - The plugins (plugin.go) of every kind: external and pre-installed ones
//     over a socket connection (internal/pluginconn), built-in ones called
//     in process (plugin_builtin.go), WASM guests (wasm*.go); each handles
//     one call at a time, within its timeout, a panic in code it steers
//     ending it, never the runtime (plugin_panic.go).
//   - The registry (plugin_registry.go): the active plugins in dispatch
//     order, copy-on-write, so that a fan-out takes no lock.
//   - Joining (join_*.go, sync_*.go): the accept loop, register, configure,
//     synchronize; the runtime's SyncFn and the snapshot reconciled with the
//     events relayed meanwhile; the catch-up; replacement; RestartPlugin.
//   - The relay of each event (events.go, event_*.go, call_*.go): the event
//     policy table and the failure table (event_policy.go), the event's
//     deadline and each call's share of it, the single fan-out (fanOut,
//     callEach), the StateChange fallback (compat_statechange.go), the
//     validators (validate.go) and a creation's pipeline (creation.go).
//   - The runtime service a plugin calls (conn_runtimeservice.go): its
//     registration and its unsolicited updates, handed to UpdateFn a few at
//     a time and never once Stop began.
//   - The barriers: events share one, a plugin's synchronization takes it
//     alone; the runtime's BlockSync blocks share another.
//   - The plugins' rollouts, as the operator chose them (rollout.go): the
//     observers, kept out of every fan-out and fed through their queues
//     (observe_*.go), the validators run dry (dryrun.go), and the plugins'
//     scopes of pods (scope.go).
//
// # What it needs
//
// Components it drives: internal/lifecycle (what each plugin was told),
// internal/readiness (the gate, which asks the registry back through
// readiness.Plugins), internal/admission (who may join now), internal/launch
// (the pre-installed processes and their output), internal/identity (who
// may hold a name), internal/scope (what each plugin may change),
// internal/merge (the replies), internal/observe (an observer's queue),
// internal/filter (a plugin's scope of pods), internal/records and
// internal/status (what Status and ContainerRecord report). And, through
// Config, what only its caller knows:
// the runtime's callbacks (SyncFn, UpdateFn), where metrics, plugin changes
// and deprecations go, the status endpoint to open with Start, and how a
// plugin's failure reads as the runtime's error (Config.PluginError). It
// never imports package adaptation, which declares the public forms and
// converts at its boundary.
package relay
