// SPDX-License-Identifier: Apache-2.0

// The errors the relay returns, and classifying a plugin's failure.

package relay

import (
	"context"
	"errors"
	"io"
	"net"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/internal/merge"
	"github.com/nrikit/nrikit/internal/nri"
)

// errCallerDeadline marks a call that ran out of the caller's time.
var errCallerDeadline = errors.New("the caller's deadline passed")

// Sentinel errors, for errors.Is; adaptation re-exports them. Plugin
// failures that fail an event come as Config.PluginError makes them,
// naming the plugin and the event.
var (
	// ErrAlreadyStarted: Start on a started relay.
	ErrAlreadyStarted = errors.New("nrikit: adaptation already started")
	// ErrStartInterrupted: Stop was called while Start was still starting
	// plugins; nothing is left running.
	ErrStartInterrupted = errors.New("nrikit: Stop was called while Start was running")
	// ErrPluginClosed: a call to a plugin that was disconnected meanwhile.
	ErrPluginClosed = errors.New("nrikit: plugin closed")
	// ErrPluginTimeout: a plugin did not answer within its timeout.
	ErrPluginTimeout = errors.New("nrikit: plugin timed out")
	// ErrRejected: a validator rejected CreateContainer's merged adjustment
	// (gRPC code FailedPrecondition).
	ErrRejected error = nri.NewCoded(nri.CodeRefused, "nrikit: adjustment rejected")
	// ErrRemoved: a setup event for a pod or container already removed
	// (gRPC code FailedPrecondition).
	ErrRemoved error = nri.NewCoded(nri.CodeRefused, "nrikit: already removed")
	// ErrConflict: two plugins' adjustments or updates claim the same thing
	// (CreateContainer, UpdateContainer).
	ErrConflict = errors.New("nrikit: conflicting adjustments")
	// ErrStopAbandoned: Stop returned with plugins still joining, because
	// the runtime's SyncFn did not return in time (typically it waits for
	// a lock that Stop's caller holds), with a plugin's updates still in
	// the runtime's UpdateFn, or with the runtime's ReadinessChanges
	// callback still running. Plugins still joining are dropped, without
	// joining, once SyncFn returns; UpdateFn calls end on their own; the
	// flips still queued are delivered once the callback returns.
	ErrStopAbandoned = errors.New("nrikit: Stop returned before the runtime's callbacks did")
)

// Causes of a plugin's failure to join, in logs and nri.Change reasons
// only: no method returns them.
var (
	errRegistration    = errors.New("nrikit: plugin registration failed")
	errUnsupportedSync = errors.New("nrikit: plugin does not handle split sync requests")
)

// conflictError makes a merge conflict match ErrConflict: the merge package
// cannot refer to this one.
type conflictError struct{ error }

func (e conflictError) Unwrap() []error { return []error{e.error, ErrConflict} }

// mergeError is how a reply's failure to merge reaches the runtime.
func mergeError(err error) error {
	err = boundedText(err)
	if errors.Is(err, merge.ErrConflict) {
		return conflictError{err}
	}
	return err
}

// failure is how a plugin call failed, which decides what the policy does.
type failure int

const (
	failError    failure = iota // the plugin answered with an error
	failTimeout                 // no answer within the deadline
	failLost                    // the connection broke or the plugin is closed
	failCanceled                // the caller's own context ended
	failRejected                // a validator said no
	failDeadline                // the event's deadline cut the call short (event_deadline.go)
)

// code is the gRPC status code of an event a plugin's failure f fails: the
// plugin refused it, or was not there to answer.
func (f failure) code() codes.Code {
	if f == failError || f == failRejected {
		return nri.CodeRefused
	}
	return nri.CodeUnavailable
}

// codeOf is the gRPC status code of a plugin's failure err: the plugin's
// own, when its error carried one (Unimplemented from a plugin that lacks
// the method, say, which the reference passes on too), else f's.
func (f failure) codeOf(err error) codes.Code {
	if f == failError {
		if c := nri.CodeOf(err, codes.Unknown); c != codes.Unknown && c != codes.OK {
			return c
		}
	}
	return f.code()
}

func (f failure) outcome() nri.Outcome {
	return [...]nri.Outcome{nri.OutcomeError, nri.OutcomeTimeout, nri.OutcomeLost, nri.OutcomeCanceled, nri.OutcomeRejected, nri.OutcomeCanceled}[f]
}

// classify decides whose fault err is, trusting what invoke decided about
// deadlines first. callerCtx is the runtime's context: its end is never
// blamed on a plugin.
func classify(callerCtx context.Context, p *plugin, err error) failure {
	switch {
	case errors.Is(err, errCallerDeadline):
		return failCanceled
	case errors.Is(err, ErrPluginTimeout):
		return failTimeout
	case callerCtx.Err() != nil:
		return failCanceled
	case errors.Is(err, ErrRejected):
		return failRejected
	case isConnectionError(err) || p.isClosed():
		return failLost
	}
	return failError
}

func isConnectionError(err error) bool {
	return errors.Is(err, ttrpc.ErrClosed) || errors.Is(err, ttrpc.ErrServerClosed) ||
		errors.Is(err, ErrPluginClosed) || errors.As(err, new(*lostError)) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		status.Code(err) == codes.Unavailable
}

// lostError marks a failure that ended an in-process plugin's instance (a
// WASM guest that trapped, exited or was stopped at its deadline): like a
// lost connection, the plugin cannot answer any more.
type lostError struct{ err error }

func (e *lostError) Error() string { return e.err.Error() }
func (e *lostError) Unwrap() error { return e.err }

func isUnimplemented(err error) bool {
	return status.Code(err) == codes.Unimplemented
}
