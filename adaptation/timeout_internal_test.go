package adaptation

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
)

// A reply that arrives in time but fails after the call's deadline has
// passed (say, in the merge) is the plugin's error, not a timeout: a timeout
// would let the event go on without the plugin, with its reply half-merged.
func TestLateFailureIsNotATimeout(t *testing.T) {
	p := newPlugin("10", "late", kindBuiltin, nil, inProcessConn{}, logrus.NewEntry(logrus.New()))
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

func TestTimedOut(t *testing.T) {
	expired, cancel := context.WithTimeoutCause(context.Background(), 0, ErrPluginTimeout)
	defer cancel()
	<-expired.Done()
	live := context.Background()
	remote := status.Error(codes.DeadlineExceeded, "plugin gave up")
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"local deadline", expired, context.DeadlineExceeded, true},
		{"plugin's copy of the deadline", live, remote, true},
		{"remote deadline after ours", expired, remote, true},
		{"other error after the deadline", expired, errors.New("bad reply"), false},
		{"other error in time", live, errors.New("bad reply"), false},
	} {
		if got := timedOut(c.ctx, c.err); got != c.want {
			t.Errorf("%s: timedOut = %v, want %v", c.name, got, c.want)
		}
	}
}

// A plugin answers "deadline exceeded" on its copy of the call's deadline,
// which may pass a moment before ours. Whose deadline it was decides whether
// the plugin is to blame: the caller's is not the plugin's fault.
func TestRemoteDeadlineBlame(t *testing.T) {
	p := newPlugin("10", "remote", kindBuiltin, nil, inProcessConn{}, logrus.NewEntry(logrus.New()))
	remote := func(context.Context) error { return status.Error(codes.DeadlineExceeded, "plugin gave up") }
	for _, c := range []struct {
		name           string
		caller, plugin time.Duration
		want           failure
	}{
		{"the caller's deadline came first", time.Minute, time.Hour, failCanceled},
		{"the request timeout came first", time.Hour, time.Minute, failTimeout},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), c.caller)
		err := p.invoke(ctx, c.plugin, remote)
		if got := classify(ctx, p, err); got != c.want {
			t.Errorf("%s: %v classified as %v, want %v", c.name, err, got.outcome(), c.want.outcome())
		}
		cancel()
	}
}
