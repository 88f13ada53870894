// SPDX-License-Identifier: Apache-2.0

// The public errors: the sentinels (most are the components' own, re-exported) and PluginError.

package adaptation

import (
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/internal/accept"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/relay"
	"github.com/nrikit/nrikit/internal/utf8check"
)

// Sentinel errors, for errors.Is. Plugin failures that fail an event come
// wrapped in a *PluginError naming the plugin and the event.
var (
	// ErrAlreadyStarted: Start on a started Adaptation.
	ErrAlreadyStarted = relay.ErrAlreadyStarted
	// ErrStartInterrupted: Stop was called while Start was still starting
	// plugins; nothing is left running.
	ErrStartInterrupted = relay.ErrStartInterrupted
	// ErrPluginClosed: a call to a plugin that was disconnected meanwhile.
	ErrPluginClosed = relay.ErrPluginClosed
	// ErrPluginTimeout: a plugin did not answer within its timeout.
	ErrPluginTimeout = relay.ErrPluginTimeout
	// ErrRejected: a validator rejected CreateContainer's merged adjustment.
	// Its gRPC code is FailedPrecondition.
	ErrRejected = relay.ErrRejected
	// ErrBadSocketPath: Start found at the socket path something it would
	// be harmful to remove (a regular file, a directory that is not empty,
	// a socket another process listens on), and left it alone. A stale
	// socket or an empty directory there is removed instead.
	ErrBadSocketPath = accept.ErrBadSocketPath
	// ErrRemoved: a setup event for a pod or container already removed.
	// Its gRPC code is FailedPrecondition.
	ErrRemoved = relay.ErrRemoved
	// ErrConflict: two plugins' adjustments or updates claim the same thing
	// (CreateContainer, UpdateContainer).
	ErrConflict = relay.ErrConflict
	// ErrStopAbandoned: Stop returned with plugins still joining, because
	// the runtime's SyncFn did not return in time (typically it waits for
	// a lock that Stop's caller holds), with a plugin's updates still in
	// the runtime's UpdateFn, or with the runtime's ReadinessChanges
	// callback still running. Plugins still joining are dropped, without
	// joining, once SyncFn returns; UpdateFn calls end on their own; the
	// flips still queued are delivered once the callback returns.
	ErrStopAbandoned = relay.ErrStopAbandoned
)

// ErrEventDeadline: a setup event or a creation's validation failed because
// its deadline (the caller's context deadline or the event budget, less the
// deadline reserve) was reached before a plugin whose failure fails it had
// answered. The error says which deadline it was and names no plugin: a
// call the deadline cut short or never made is not the plugin's fault (the
// log line names them; Status counts them as canceled or not_called). It
// also matches context.DeadlineExceeded, and its gRPC code is
// DeadlineExceeded.
var ErrEventDeadline = relay.ErrEventDeadline

// ErrPluginIDTaken: an external plugin registered under the index and name
// of a plugin the runtime starts itself (pre-installed, WASM or builtin),
// from Start to Stop, whether that plugin is active, restarting, crashed
// or dropped; the error says which. Only an external instance replaces an
// external one: a local peer must not take the operator's plugins' names,
// with their settings, nor a required validator's identity.
var ErrPluginIDTaken = relay.ErrPluginIDTaken

// ErrNotRestartable is wrapped by RestartPlugin's error for a plugin that
// nrikit did not start from the plugin path, so that it cannot start it
// again.
var ErrNotRestartable = relay.ErrNotRestartable

// ErrInvalidUTF8 is wrapped by the error of an event whose request, or a
// plugin's reply to it, holds a string that is not valid UTF-8. protobuf
// forbids such strings: a plugin's decoder refuses the message, so nrikit
// neither sends one nor merges one, where a later plugin would get it. The
// error names the field.
var ErrInvalidUTF8 = utf8check.ErrInvalidUTF8

// PluginError is a plugin's failure of one event or handshake phase.
type PluginError struct {
	Plugin string // "<idx>-<name>"
	Op     string // event name ("CreateContainer") or phase ("register", "configure", "synchronize")
	Err    error
}

func (e *PluginError) Error() string { return nri.PluginErrorText(e.Plugin, e.Op, e.Err) }

func (e *PluginError) Unwrap() error { return e.Err }

// GRPCStatus is the gRPC status a runtime passes on to its caller
// (status.FromError finds it, wrapped or not): FailedPrecondition when the
// plugin refused the operation (its error, a validator's rejection, an
// adjustment that conflicts or is refused) or the code of the plugin's own
// status error if it returned one, Unavailable when it was not
// there to answer (it timed out or its connection was lost), with the
// error's text as the message.
func (e *PluginError) GRPCStatus() *status.Status {
	return status.New(nri.CodeOf(e.Err, nri.CodeRefused), e.Error())
}

// pluginError is how the relay makes the error of a plugin's failure that
// reaches the runtime.
func pluginError(plugin, op string, err error) error {
	return &PluginError{Plugin: plugin, Op: op, Err: err}
}
