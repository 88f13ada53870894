// SPDX-License-Identifier: Apache-2.0

// Whose deadline ended a plugin call: the call's own, or the runtime caller's.

package relay

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// deadlineOwner says whose deadline ended a plugin call.
type deadlineOwner int

const (
	noDeadline     deadlineOwner = iota // the call failed for another reason
	ownDeadline                         // the call's own timeout: the plugin's fault
	callerDeadline                      // the runtime caller's context: nobody's fault
)

// remoteDeadlineSlack is how close to the call's deadline a plugin's own
// "deadline exceeded" answer must come to count as the call's deadline. The
// plugin's copy of the deadline passes after ours (it is sent as a duration),
// so its answer comes once ours has passed, or as good as: our timer may fire
// late on a loaded machine. Earlier, it is an error of the plugin's own.
const remoteDeadlineSlack = 10 * time.Millisecond

// whoseDeadline tells whose deadline, if any, ended a call under ctx (the
// call's own context) that failed with err. callerFirst says whether the
// caller's deadline comes before the call's timeout.
func whoseDeadline(ctx context.Context, err error, callerFirst bool) deadlineOwner {
	remote := status.Code(err) == codes.DeadlineExceeded
	local := errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrPluginTimeout)
	switch {
	case errors.Is(err, errRequestCutShort):
		// The write's deadline was ctx's, which may not have reported its
		// end yet: whose it is was known from the start.
		if callerFirst {
			return callerDeadline
		}
		return ownDeadline
	case !remote && !local:
		return noDeadline
	case ctx.Err() != nil:
		if causeOf(ctx) == ErrPluginTimeout {
			return ownDeadline
		}
		return callerDeadline
	case remote && nearDeadline(ctx):
		if callerFirst {
			return callerDeadline
		}
		return ownDeadline
	}
	return noDeadline
}

func nearDeadline(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && time.Until(d) <= remoteDeadlineSlack
}

// callerDeadlineFirst tells whether ctx ends no later than a call's own
// timeout would.
func callerDeadlineFirst(ctx context.Context, timeout time.Duration) bool {
	d, ok := ctx.Deadline()
	return ok && !d.After(time.Now().Add(timeout))
}

type ownDeadlineKey struct{}

// withOwnDeadline records when the call's own timeout ends. An in-process
// plugin that must not be cut short by the caller's cancellation runs to
// this deadline instead: stopping a WASM guest mid-call kills it, and the
// caller's impatience must not cost the plugin its life.
func withOwnDeadline(ctx context.Context, d time.Time) context.Context {
	return context.WithValue(ctx, ownDeadlineKey{}, d)
}

// ownDeadlineOf is the deadline withOwnDeadline recorded in ctx.
func ownDeadlineOf(ctx context.Context) (time.Time, bool) {
	d, ok := ctx.Value(ownDeadlineKey{}).(time.Time)
	return d, ok
}
