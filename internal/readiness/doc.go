// SPDX-License-Identifier: Apache-2.0

// Package readiness is the readiness gate: whether the plugins a pod
// requires are active when it starts.
//
// It owns the node-level readiness (whether every plugin the default
// validator requires is active, and since when), the pods waiting in
// AwaitPlugins for their required plugins and the bound of their wait, the
// story of each missing plugin (never connected, left, failed to join, in
// its sync back-off, synchronizing, not started), the hint logged when a
// required plugin's synchronization waits for the runtime's SyncFn while
// pods wait for it, the check of a
// pod's RunPodSandbox ([Gate]), and the delivery of each flip of the
// node-level readiness to the runtime's callback.
//
// A [Tracker] needs:
//   - the active plugins and their admission, through [Plugins], which the
//     relay (internal/relay) implements over its registry;
//   - the core's notices of what happens to plugins: [Tracker.Joined],
//     [Tracker.Left], [Tracker.Failed], [Tracker.Synchronizing],
//     [Tracker.Restarting], and [Tracker.Starting] and [Tracker.Stopping]
//     around a run;
//   - the default validator, in its [Config], for what a pod requires.
//
// The adaptation calls [Tracker.Await] from AwaitPlugins and
// [Tracker.State] from Readiness, and converts the tracker's forms ([State],
// [Missing]) to its public types at that boundary.
package readiness
