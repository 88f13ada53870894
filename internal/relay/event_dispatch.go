// SPDX-License-Identifier: Apache-2.0

// The single dispatch path: fan-out of one event to the plugins, the failure policy applied, drops.

package relay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/readiness"
)

// rpcFunc is one dedicated Plugin RPC, as a method expression of
// api.PluginService (e.g. api.PluginService.CreateContainer).
type rpcFunc[Req, Rsp any] func(api.PluginService, context.Context, Req) (Rsp, error)

// fanOut is the one path of every event to the plugins: the request
// checked against what was removed, then each subscribed plugin in order,
// one call each, and collect (if any) merges the reply. The caller holds the
// event barrier. It is for the events that have no deadline (teardown and
// notification); a setup event took its deadline when it was called
// (setupBarrier) and relays until it.
func fanOut[Req, Rsp any](ctx context.Context, r *Relay, ev api.Event, req Req, rpc rpcFunc[Req, Rsp], collect func(*plugin, Rsp) error) error {
	return fanOutUntil(ctx, r, ev, req, rpc, collect, eventDeadline{})
}

// fanOutUntil is fanOut within the event's deadline dl.
func fanOutUntil[Req, Rsp any](ctx context.Context, r *Relay, ev api.Event, req Req, rpc rpcFunc[Req, Rsp], collect func(*plugin, Rsp) error, dl eventDeadline) error {
	return fanOutWithin(ctx, r, ev, newOutgoing(req, !policyOf(ev).evolving), rpc, collect, dl, nil)
}

// fanOutWithin is fanOutUntil for a request whose encoding the caller
// manages; g is the readiness check of a RunPodSandbox (nil for other
// events, or with the gate off), resolved once for the whole fan-out.
func fanOutWithin[Req, Rsp any](ctx context.Context, r *Relay, ev api.Event, out *outgoing[Req], rpc rpcFunc[Req, Rsp], collect func(*plugin, Rsp) error, dl eventDeadline, g *readiness.Gate) error {
	if err := r.checkRequest(ctx, ev, policyOf(ev), out.req); err != nil {
		return err
	}
	if !policyOf(ev).class.canFail() {
		toObservers(r, ev, out.req, rpc) // at the event's start (observe_events.go)
	}
	return callEach(ctx, r, ev, out, rpc, collect, dl, g)
}

// callEach calls each plugin that takes ev, in dispatch order, with the
// request as out gives it, within dl, and hands each reply to collect; the
// request was checked (checkRequest). It encodes the request, and checks its
// strings, once: when the first plugin gets it.
func callEach[Req, Rsp any](ctx context.Context, r *Relay, ev api.Event, out *outgoing[Req], rpc rpcFunc[Req, Rsp], collect func(*plugin, Rsp) error, dl eventDeadline, g *readiness.Gate) error {
	req := out.req
	pol := policyOf(ev)
	if _, deadline := ctx.Deadline(); !pol.class.canFail() && (ctx.Done() != nil || deadline) {
		// Teardown and notification reach every plugin even when the caller
		// gives up: each call is still bounded by the request timeout. (A
		// context that cannot end, like context.Background, is kept as is.)
		ctx = context.WithoutCancel(ctx)
	}
	checked := false // the request's strings, once some plugin gets it
	plugins := r.registry.snapshot()
	if dl.passed() {
		if err := r.deadlinePassed(ctx, ev, plugins, deadlineBeforeStart, dl); err != nil {
			return err
		}
	}
	for i, p := range plugins {
		if p.gone() {
			// Dropped, or its connection lost, before its turn: skipped, so
			// that an idle disconnect never fails the event.
			continue
		}
		r.payOwed(ctx, p, ev, req)
		// The contract advances for every plugin, subscribed or not, so that a
		// plugin that takes only stops still gets them.
		if !r.lifecycle.Admit(p, ev, req) {
			g.TookPart(p.id) // it knew the pod already
			continue
		}
		if !p.subscribed(ev) {
			continue
		}
		if !checked {
			checked = true
			if err := checkRequestEncoding(ev, out); err != nil {
				return r.undeliverable(pol, ev, err)
			}
		}
		fp := r.failurePolicyFor(p, g)
		budget := r.budgetFor(dl, ev, g, p, fp, plugins[i+1:])
		if budget.timeout <= 0 {
			if err := r.notReached(ctx, ev, p, fp.FailRequest, dl); err != nil {
				return r.withNotReached(ctx, err, ev, plugins[i+1:])
			}
			continue
		}
		err := r.deliver(ctx, pol, ev, p, fp, budget, func(ctx context.Context) error {
			rsp, err := callPlugin(ctx, r, p, ev, out, rpc)
			if err != nil || collect == nil {
				return err
			}
			return collect(p, rsp)
		})
		if err != nil {
			return r.withNotReached(ctx, err, ev, plugins[i+1:])
		}
	}
	return nil
}

// deliver makes one plugin call within budget and applies the event policy
// to its outcome, with fp as the plugin's failure policy for this event. It
// returns an error only when the operation must fail.
func (r *Relay) deliver(ctx context.Context, pol eventPolicy, ev api.Event, p *plugin, fp nri.FailurePolicy, budget callBudget, call func(context.Context) error) error {
	start := time.Now()
	mark, done := p.handling(ev)
	defer func() {
		done()
		// The watcher leaves a connection lost during the call to us
		// (join_handshake.go): drop the plugin if the outcome did not.
		if connectionLost(p.conn) {
			r.drop(ctx, p, "", failLost)
		}
	}()
	called := false
	err := p.invoke(ctx, budget.timeout, func(ctx context.Context) error {
		called = true
		mark()
		return call(ctx)
	})
	if !called && errors.Is(err, ErrPluginClosed) && pol.class != classValidation {
		// Closed while waiting for its turn: as if skipped. A validator's
		// silence never passes for consent.
		return nil
	}
	if err == nil {
		took := time.Since(start)
		r.cfg.Metrics.PluginInvoked(p.id, ev, nri.OutcomeOK, took)
		p.stats.Record(ev, nri.OutcomeOK, took)
		if p.log.Logger.IsLevelEnabled(logrus.DebugLevel) {
			p.logCtx(ctx).WithFields(logrus.Fields{"event": ev.Name(), "took": took}).Debug("nrikit: plugin handled the event")
		}
		return nil
	}
	f := classify(ctx, p, err)
	if f == failTimeout && budget.cut {
		f = failDeadline
	}
	r.cfg.Metrics.PluginCallFailed(p.id, ev, f.outcome(), err)
	took := time.Since(start)
	r.cfg.Metrics.PluginInvoked(p.id, ev, f.outcome(), took)
	if f != failDeadline { // the deadline's cut is not the plugin's failure
		p.stats.Failed(ev, nri.Outcome(f.outcome()), err)
	}
	p.stats.Record(ev, nri.Outcome(f.outcome()), took)
	return r.applyPolicy(ctx, pol, ev, p, fp, f, budget.byBudget, err)
}

// applyPolicy is the event policy table's error columns (event_policy.go). It
// logs one line that says what happened and what follows, then acts.
// byBudget says whether the event budget set the event's deadline, for a
// call it cut.
func (r *Relay) applyPolicy(ctx context.Context, pol eventPolicy, ev api.Event, p *plugin, fp nri.FailurePolicy, f failure, byBudget bool, err error) error {
	if f == failDeadline {
		return r.cutByEventDeadline(ctx, ev, p, pol.class == classValidation || fp.FailRequest, byBudget, err)
	}
	perr := r.cfg.PluginError(p.id, ev.Name(), nri.WithCode(err, f.codeOf(err)))
	log := p.logCtx(ctx).WithField("event", ev.Name()).WithField("error", err.Error())
	if fp.FailRequest && !p.policy.FailRequest {
		// Only the readiness gate raises a policy: say so, since Plugins()
		// and Status show the plugin's own.
		log = log.WithField("failure_policy", "fail_request (a required plugin of the pod, plugin_readiness)")
	}
	cutShort := errors.Is(err, errRequestCutShort)
	if f == failCanceled {
		if cutShort {
			log.Warn("nrikit: the caller's deadline cut short the plugin's request; dropping it")
			r.drop(ctx, p, ev.Name(), f)
		}
		cause := context.Cause(ctx)
		if cause == nil { // the plugin saw the caller's deadline pass a moment before we did
			cause = context.DeadlineExceeded
		}
		return nri.WithCode(fmt.Errorf("nrikit: %s canceled by the caller: %w", ev.Name(), cause), nri.ContextCode(cause))
	}
	// A plugin whose instance a timeout ended (a WASM guest stopped at its
	// deadline), or whose connection a request cut short left out of step,
	// cannot be kept, whatever its policy.
	d := decide(pol.class, f, fp, connectionLost(p.conn), cutShort)
	log.Warn(policyMessage(failureText(f, err), f, d.keep, d.fails, fp.KeepConnected))
	if !d.keep {
		r.drop(ctx, p, ev.Name(), f)
	}
	if d.fails {
		return perr
	}
	return nil
}

// failureText says what went wrong, for the policy's log line.
func failureText(f failure, err error) string {
	if f == failError && errors.Is(err, ErrConflict) {
		return "nrikit: plugin's adjustment conflicts with an earlier plugin's"
	}
	if f == failTimeout && errors.Is(err, errRequestCutShort) {
		return "nrikit: plugin timed out before it took the whole request"
	}
	return map[failure]string{
		failError:    "nrikit: plugin failed the event",
		failRejected: "nrikit: plugin rejected the adjustment",
		failTimeout:  "nrikit: plugin timed out",
		failLost:     "nrikit: plugin connection lost",
	}[f]
}

// policyMessage says in one line what a failure was and what follows.
func policyMessage(what string, f failure, keep, fails, keptByPolicy bool) string {
	switch {
	case keptByPolicy && keep && f == failTimeout:
		what += "; kept connected by its failure policy"
	case !keep:
		what += "; dropping it"
	}
	if fails {
		return what + "; the operation fails"
	}
	return what + "; the operation goes on without it"
}

// drop removes p from the dispatch list and disconnects it, because of f
// during the event phase (empty when its connection broke while idle); ctx
// is the event's, for the log line.
func (r *Relay) drop(ctx context.Context, p *plugin, phase string, f failure) {
	r.dropFor(ctx, p, phase, func() string {
		reason := "connection lost"
		if phase != "" {
			reason = string(f.outcome()) + " during " + phase
		}
		if f == failLost {
			reason += exitNote(p.conn)
		}
		return reason
	})
}

// dropFor is drop for the reason why says, asked once p is closed.
func (r *Relay) dropFor(ctx context.Context, p *plugin, phase string, why func() string) {
	removed := r.registry.remove(p)
	r.forget(p)
	// Closing kills a launched plugin that still runs, so that its exit
	// status comes at once; one that crashed keeps the status it had.
	p.close()
	if !removed {
		return // another path dropped it, and reports it
	}
	r.cfg.Metrics.PluginCount(r.registry.len())
	reason, log := withPanic(p, p.logCtx(ctx), why())
	log.WithField("reason", reason).Warn("nrikit: plugin dropped")
	r.reportLeft(p, phase, reason)
}

// forget releases what was recorded for a plugin that leaves.
func (r *Relay) forget(p *plugin) {
	r.deprecations.forget(p)
	r.lifecycle.Forget(p)
}

// eventBarrier is held for the whole fan-out of one event, so that no
// fan-out is in flight while a plugin takes its synchronization snapshot.
// Teardown and notification events wait for it whatever their caller's
// context, so that they are never lost; see setupBarrier for the others.
func (r *Relay) eventBarrier() (release func()) {
	release, _ = r.barrier.EnterShared(context.Background())
	return release
}

// setupBarrier is eventBarrier for an event that can fail: it gives up when
// the caller's context ends while a plugin synchronizes, since the runtime
// has then given up on the operation anyway. It returns the event's
// deadline D, taken before the wait: the event budget counts from the call,
// so time spent waiting for a plugin's synchronization is part of it. When
// a plugin takes part in the event, the wait also ends at D, which fails
// the event: it could not call that plugin any more (deadlinePassed).
func (r *Relay) setupBarrier(ctx context.Context, ev api.Event) (release func(), dl eventDeadline, err error) {
	dl = r.deadlineOf(ctx, policyOf(ev))
	var until time.Time
	if dl.set() && slices.ContainsFunc(r.registry.snapshot(), func(p *plugin) bool { return takesPart(p, ev) }) {
		until = dl.at
	}
	release, err = r.barrier.EnterSharedUntil(ctx, until)
	if err == nil {
		return release, dl, nil
	}
	if ctx.Err() == nil && dl.passed() {
		if missed := r.deadlinePassed(ctx, ev, r.registry.snapshot(), deadlineWhileSync, dl); missed != nil {
			err = missed
		}
	}
	err = fmt.Errorf("nrikit: %s given up while waiting for a plugin's synchronization: %w", ev.Name(), err)
	return nil, dl, nri.WithCode(err, nri.CodeOf(err, nri.ContextCode(err)))
}

// takesPart tells whether p takes ev or, for CreateContainer, validates
// it, and is waited for.
func takesPart(p *plugin, ev api.Event) bool {
	return p.Takes(ev) || ev == api.Event_CREATE_CONTAINER && p.Takes(api.Event_VALIDATE_CONTAINER_ADJUSTMENT)
}
