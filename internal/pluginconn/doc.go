// SPDX-License-Identifier: Apache-2.0

// Package pluginconn is one plugin's socket connection as the runtime holds
// it: the mux over the unix socket (internal/mux), a ttrpc client for the
// Plugin service on connection 1 and a ttrpc server for the runtime's
// services on connection 2, each behind a guard (internal/guard) that lets
// only unary calls through, and the launched process at the other end, if
// any.
//
// It owns what a peer can do to that connection and answers it there, so
// that nothing of it reaches the rest of nrikit: requests beyond
// MaxPendingPluginCalls answered at once (bounded.go), UpdateContainers calls
// of more than MaxUnsolicitedUpdates refused before they are decoded,
// strings that are not valid UTF-8 refused naming the field, a panic in the
// services it steers ending the connection, protocol violations logged at a
// bounded rate (peerlog.go), and request writes bounded by the call's
// deadline. It also owns the table of protocol revisions (revision.go):
// what differs between v1alpha1 and v1beta1.
//
// It needs the runtime's services to serve (Config.Register), which its
// caller builds per connection, and knows nothing of plugins' registration,
// events or policy.
package pluginconn
