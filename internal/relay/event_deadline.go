// SPDX-License-Identifier: Apache-2.0

// The event's deadline D and each setup or validation call's share of it.

package relay

import (
	"context"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/admission"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/readiness"
)

// minOptionalCall is the least an optional plugin's call gets when the time
// set aside for the mandatory plugins after it would leave it less (never
// more than the time left to the event's deadline, though): a plugin that
// answers quickly is still heard.
const minOptionalCall = 50 * time.Millisecond

// eventDeadline is one event's deadline D. The zero value is none: every
// call gets its plugin's own timeout, as when no deadline and no budget are
// set.
type eventDeadline struct {
	at time.Time
	// tail is set aside after the fan-out, for the mandatory calls that
	// follow it: the slowest validator's timeout, for CreateContainer.
	tail time.Duration
	// byBudget: the event budget set D, not the caller's deadline; the
	// error of an event D ends says which.
	byBudget bool
}

// deadlineOf is D for an event that starts now: the earlier of ctx's
// deadline and now plus the event budget, less the deadline reserve. Only
// setup and validation events have one.
//
// A caller's deadline that leaves less than twice the reserve shares what
// is left: half of it for the plugins, half for the runtime. So a short
// deadline still reaches the plugins that answer in time, as the
// reference does, rather than failing at once because the reserve alone
// outlasts it; and D moves steadily with the caller's deadline, never
// earlier for a later one. (The budget, which New keeps above the reserve,
// always leaves the whole reserve.)
func (r *Relay) deadlineOf(ctx context.Context, pol eventPolicy) eventDeadline {
	if !pol.class.canFail() {
		return eventDeadline{}
	}
	end, ok := ctx.Deadline()
	byBudget := false
	if budget := r.cfg.EventBudget; budget > 0 {
		if own := time.Now().Add(budget); !ok || own.Before(end) {
			end, ok, byBudget = own, true, true
		}
	}
	if !ok {
		return eventDeadline{}
	}
	reserve := r.cfg.DeadlineReserve
	if !byBudget {
		reserve = min(reserve, max(time.Until(end), 0)/2)
	}
	return eventDeadline{at: end.Add(-reserve), byBudget: byBudget}
}

func (d eventDeadline) set() bool { return !d.at.IsZero() }

// passed tells whether D is set and reached.
func (d eventDeadline) passed() bool { return d.set() && !time.Now().Before(d.at) }

// callBudget is the time one plugin call may take.
type callBudget struct {
	timeout time.Duration
	// cut: the event's deadline made timeout shorter than the plugin's own,
	// so running out of it is not the plugin's fault.
	cut bool
	// byBudget: the event budget set that deadline (not the caller's).
	byBudget bool
}

// within is the budget of a call that may take up to room of D but no more
// than the plugin's own timeout.
func (d eventDeadline) within(own, room time.Duration) callBudget {
	if room < own {
		return callBudget{timeout: room, cut: true, byBudget: d.byBudget}
	}
	return callBudget{timeout: own}
}

// forMandatory is the budget of a call whose failure fails the event (a
// fail_request plugin, a validator): its own timeout, capped by D.
func (d eventDeadline) forMandatory(p *plugin) callBudget {
	if !d.set() {
		return callBudget{timeout: p.timeout}
	}
	return d.within(p.timeout, time.Until(d.at))
}

// forOptional is the budget of a call whose failure does not fail the
// event: what is left to D once reserved is set aside for the mandatory
// calls after it, but at least minOptionalCall (within D).
func (d eventDeadline) forOptional(p *plugin, reserved time.Duration) callBudget {
	if !d.set() {
		return callBudget{timeout: p.timeout}
	}
	left := time.Until(d.at)
	return d.within(p.timeout, max(left-reserved, min(minOptionalCall, left)))
}

// budgetFor is p's call budget in the fan-out of ev, whose plugins after p
// are later, fp being p's failure policy for it and g the readiness check
// of a RunPodSandbox (nil for other events).
func (r *Relay) budgetFor(d eventDeadline, ev api.Event, g *readiness.Gate, p *plugin, fp nri.FailurePolicy, later []*plugin) callBudget {
	if !d.set() {
		return callBudget{timeout: p.timeout}
	}
	if fp.FailRequest {
		return d.forMandatory(p)
	}
	return d.forOptional(p, r.reservedFor(d, ev, g, later))
}

// reservedFor is the time set aside for the mandatory plugins in later, and
// the event's tail.
func (r *Relay) reservedFor(d eventDeadline, ev api.Event, g *readiness.Gate, later []*plugin) time.Duration {
	reserved := d.tail
	for _, q := range later {
		if q.subscribed(ev) && !q.gone() && r.failurePolicyFor(q, g).FailRequest {
			reserved += q.timeout
		}
	}
	return reserved
}

// withValidators is a CreateContainer's D with the slowest of its
// validators' timeouts set aside after the fan-out.
func (d eventDeadline) withValidators(validators []*plugin) eventDeadline {
	if d.set() {
		d.tail = admission.SlowestTimeout(validators)
	}
	return d
}
