// SPDX-License-Identifier: Apache-2.0

package relay

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/internal/merge"
	"github.com/nrikit/nrikit/internal/nri"
)

// A reply that arrives in time but fails after the call's deadline has
// passed (say, in the merge) is the plugin's error, not a timeout: a timeout
// would let the event go on without the plugin, with its reply half-merged.
func TestLateFailureIsNotATimeout(t *testing.T) {
	p := newPlugin("10", "late", nri.Builtin, nil, inProcessConn{}, logrus.NewEntry(logrus.New()))
	conflict := fmt.Errorf("merging: %w", merge.ErrConflict)
	err := p.invoke(context.Background(), time.Millisecond, func(ctx context.Context) error {
		<-ctx.Done()
		return conflict
	})
	if errors.Is(err, ErrPluginTimeout) || !errors.Is(err, merge.ErrConflict) {
		t.Errorf("invoke = %v, want the conflict and no timeout", err)
	}
	if f := classify(context.Background(), p, err); f != failError {
		t.Errorf("classified as %v, want an error", f.outcome())
	}
}

// lateTimer is a context whose deadline has passed but whose timer has not
// fired yet, as on a loaded machine.
type lateTimer struct {
	context.Context
	deadline time.Time
}

func (c lateTimer) Deadline() (time.Time, bool) { return c.deadline, true }

func TestWhoseDeadline(t *testing.T) {
	ours, cancel := context.WithTimeoutCause(context.Background(), 0, ErrPluginTimeout)
	defer cancel()
	<-ours.Done()
	callers, cancel2 := context.WithTimeout(context.Background(), 0)
	defer cancel2()
	<-callers.Done()
	late := lateTimer{context.Background(), time.Now().Add(-time.Millisecond)}
	far, cancel3 := context.WithTimeout(context.Background(), time.Hour)
	defer cancel3()
	remote := status.Error(codes.DeadlineExceeded, "plugin gave up")
	for _, c := range []struct {
		name        string
		ctx         context.Context
		err         error
		callerFirst bool
		want        deadlineOwner
	}{
		{"our timer fired", ours, context.DeadlineExceeded, false, ownDeadline},
		{"the caller's deadline fired", callers, context.DeadlineExceeded, true, callerDeadline},
		{"the plugin's copy of our timeout, our timer late", late, remote, false, ownDeadline},
		{"the plugin's copy of the caller's deadline, our timer late", late, remote, true, callerDeadline},
		{"the plugin's own deadline error, long before ours", far, remote, false, noDeadline},
		{"another error after our deadline", ours, errors.New("bad reply"), false, noDeadline},
		{"another error in time", far, errors.New("bad reply"), false, noDeadline},
	} {
		if got := whoseDeadline(c.ctx, c.err, c.callerFirst); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// A plugin that answers "deadline exceeded" at once, for a reason of its
// own, failed the call: it neither timed out nor met the caller's deadline.
func TestOwnDeadlineErrorIsThePlugins(t *testing.T) {
	p := newPlugin("10", "remote", nri.Builtin, nil, inProcessConn{}, logrus.NewEntry(logrus.New()))
	remote := func(context.Context) error { return status.Error(codes.DeadlineExceeded, "my database timed out") }
	for _, caller := range []time.Duration{time.Minute, time.Hour} {
		ctx, cancel := context.WithTimeout(context.Background(), caller)
		err := p.invoke(ctx, 30*time.Minute, remote)
		if got := classify(ctx, p, err); got != failError {
			t.Errorf("caller deadline in %v: %v classified as %v, want an error", caller, err, got.outcome())
		}
		cancel()
	}
}
