// SPDX-License-Identifier: Apache-2.0

// Package status keeps what nrikit's Status reports of its own record, as
// things happen, and serves Status over HTTP.
//
// What it owns:
//
//   - [Counters]: one plugin instance's calls by event and outcome, their
//     latency histograms on fixed bounds, the calls the event's deadline
//     left unmade, the last error and when the plugin joined. Counting a
//     call allocates nothing: the arrays come with the counters.
//   - [RecentChanges]: the last [MaxRecentChanges] plugin changes, and the
//     refused connections kept apart ([MaxRecentRefused] of them), so that
//     a flood of them cannot push a plugin's departure out.
//   - [Joining]: the handshakes in progress, and a signal at each change.
//   - [Server]: the read-only HTTP endpoint (GET /v1/status, GET
//     /v1/containers/{id}), at most [MaxClients] connections at once.
//
// What it needs: the values of internal/nri, api's event names and
// internal/wake; it calls no other component. The dispatch path counts
// each call in the plugin's Counters, the change feed adds each change it
// reports to the runtime, and the handshake begins, moves and ends its
// [Handshake]. Package adaptation reads the snapshots, in this package's
// forms, when the runtime asks for Status, and converts them field by field
// to its public types. The Server is given a listener already open
// (adaptation makes the unix socket, with the plugin socket's rules) and
// its two answers as funcs ([Answers]), so that it knows neither the
// socket's rules nor the public types it encodes.
package status
