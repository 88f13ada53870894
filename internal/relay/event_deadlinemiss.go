// SPDX-License-Identifier: Apache-2.0

// Missing the event's deadline: ErrEventDeadline, and what a call D cut short or never reached means.

package relay

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/api"
)

// ErrEventDeadline: a setup event or a creation's validation failed because
// its deadline (the caller's context deadline or the event budget, less the
// deadline reserve) was reached before a plugin whose failure fails it had
// answered. The error says which deadline it was and how many plugins it
// left unanswered, and names none of them: a call the deadline cut short
// or never made is not the plugin's fault (the log line names them, and
// Status counts them). It also matches context.DeadlineExceeded.
var ErrEventDeadline = errors.New("nrikit: the event's deadline was reached")

// eventDeadlineError is how a setup event or a validation fails at D.
type eventDeadlineError struct {
	ev string
	// notReached are the plugins cut short or never called, in order: for
	// the log line, never for the error's text.
	notReached []string
	byBudget   bool // event_budget set D, not the caller's deadline
}

func (e *eventDeadlineError) Error() string {
	by := "the caller's deadline, less deadline_reserve,"
	if e.byBudget {
		by = "event_budget, less deadline_reserve,"
	}
	n := len(e.notReached)
	return fmt.Sprintf("%v: %s: %s ended it before %d plugin call%s it needed had answered", ErrEventDeadline, e.ev, by, n, plural(n))
}

func (e *eventDeadlineError) Unwrap() []error {
	return []error{ErrEventDeadline, context.DeadlineExceeded}
}

// GRPCStatus is DeadlineExceeded, whichever deadline it was: the runtime
// passes it to its caller as the caller's own deadline's end.
func (e *eventDeadlineError) GRPCStatus() *status.Status {
	return status.New(codes.DeadlineExceeded, e.Error())
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// withNotReached adds to an event deadline error the plugins of later that
// the fan-out of ev would still have called, counts their calls as not
// made, and names them in a log line.
func (r *Relay) withNotReached(ctx context.Context, err error, ev api.Event, later []*plugin) error {
	var dl *eventDeadlineError
	if errors.As(err, &dl) {
		if uncalled := dl.addUncalled(ev, later); len(uncalled) > 0 {
			r.logCtx(ctx).WithField("event", ev.Name()).WithField("plugins", strings.Join(uncalled, ",")).
				Warn("nrikit: the event's deadline ended it before these plugins' turn; they were not called")
		}
	}
	return err
}

// addUncalled adds the plugins that would have taken ev to those not
// reached, counts their calls as not made, and returns their ids.
func (e *eventDeadlineError) addUncalled(ev api.Event, plugins []*plugin) []string {
	n := len(e.notReached)
	for _, p := range plugins {
		if p.subscribed(ev) && !p.gone() {
			e.notReached = append(e.notReached, p.id)
			countNotCalled(p, ev)
		}
	}
	return e.notReached[n:]
}

// notReached handles p, whose turn came after D: an optional plugin is
// skipped and the event goes on; a mandatory one fails it.
func (r *Relay) notReached(ctx context.Context, ev api.Event, p *plugin, mandatory bool, dl eventDeadline) error {
	countNotCalled(p, ev)
	log := p.logCtx(ctx).WithField("event", ev.Name())
	if !mandatory {
		log.Warn("nrikit: the event's deadline was reached before the plugin's turn; the operation goes on without it")
		return nil
	}
	log.Warn("nrikit: the event's deadline was reached before the plugin's turn; the operation fails")
	return &eventDeadlineError{ev: ev.Name(), notReached: []string{p.id}, byBudget: dl.byBudget}
}

// cutByEventDeadline is the failure policy of a call that D cut short: not
// the plugin's fault, so its own policy does not apply. It is kept, unless
// its connection was left out of step (a request cut short mid-write) or
// its instance ended; the event fails only if the plugin is mandatory.
func (r *Relay) cutByEventDeadline(ctx context.Context, ev api.Event, p *plugin, mandatory, byBudget bool, err error) error {
	outOfStep := errors.Is(err, errRequestCutShort) || connectionLost(p.conn)
	what := "nrikit: the event's deadline cut the plugin's call short"
	if outOfStep {
		what += "; dropping it, its connection is out of step"
	}
	if mandatory {
		what += "; the operation fails"
	} else {
		what += "; the operation goes on without it"
	}
	p.logCtx(ctx).WithField("event", ev.Name()).WithField("error", err.Error()).Warn(what)
	if outOfStep {
		r.drop(ctx, p, ev.Name(), failDeadline)
	}
	if mandatory {
		return &eventDeadlineError{ev: ev.Name(), notReached: []string{p.id}, byBudget: byBudget}
	}
	return nil
}

// Whens of deadlinePassed.
const (
	deadlineBeforeStart = "had passed when it began"
	deadlineWhileSync   = "was reached while it waited for a plugin's synchronization"
)

// deadlinePassed fails, calling nobody, an event whose deadline passed
// before its fan-out (when says at what point), if any plugin takes part
// in it.
func (r *Relay) deadlinePassed(ctx context.Context, ev api.Event, plugins []*plugin, when string, dl eventDeadline) error {
	e := uncalledAtDeadline(ev, plugins, dl.byBudget)
	if e == nil {
		return nil
	}
	r.logCtx(ctx).WithField("event", ev.Name()).WithField("plugins", strings.Join(e.notReached, ",")).
		Warn("nrikit: the event's deadline " + when + "; the operation fails without calling any plugin")
	return e
}

// uncalledAtDeadline is the error of an event whose deadline came before
// its fan-out began: the plugins of plugins that take part in it (take it
// or, for CreateContainer, validate it), none of them called. It is nil
// when none takes part.
func uncalledAtDeadline(ev api.Event, plugins []*plugin, byBudget bool) *eventDeadlineError {
	e := &eventDeadlineError{ev: ev.Name(), byBudget: byBudget}
	e.addUncalled(ev, plugins)
	if ev == api.Event_CREATE_CONTAINER {
		e.addUncalled(api.Event_VALIDATE_CONTAINER_ADJUSTMENT, plugins)
	}
	if len(e.notReached) == 0 {
		return nil
	}
	return e
}

// countNotCalled counts p's call of ev, which the event's deadline left
// unmade, in Status's not_called: not as a call, whose outcome and latency
// it does not have, and not in the metrics' PluginInvoked, as p was not
// invoked. Every path that leaves a call unmade at the deadline counts it
// here: p's turn after it (notReached), the event beginning after it
// (deadlinePassed), and a mandatory plugin's miss ending the fan-out
// before p's turn (withNotReached).
func countNotCalled(p *plugin, ev api.Event) {
	p.stats.Skipped(ev)
}
