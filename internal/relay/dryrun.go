// SPDX-License-Identifier: Apache-2.0

// Validation run dry: a validator's verdict queued, logged, counted and recorded, never enforced;
// the default validator's dry_run.

package relay

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/observe"
	"github.com/nrikit/nrikit/internal/ratelog"
	"github.com/nrikit/nrikit/internal/records"
)

// dryRunValidators lists the plugins whose validation of a creation is
// queued and not enforced (validatesDry), nil if none.
func (r *Relay) dryRunValidators() []*plugin {
	var dry []*plugin
	for _, p := range r.registry.all() {
		if p.validatesDry() {
			dry = append(dry, p)
		}
	}
	return dry
}

// keepDryRunRequest keeps the validation request's encoding, as the
// enforcing validators get it, for the validators run dry: encoded now,
// before CreateContainer returns, since the runtime may change its objects
// after.
func (c *creation) keepDryRunRequest(out *outgoing[*api.ValidateContainerAdjustmentRequest]) {
	if len(c.dryRun) == 0 {
		return
	}
	if b, _ := out.encoding(); b != nil {
		c.dryRunReq = b
		return
	}
	c.r.log.WithField("container", c.req.GetContainer().GetId()).Warn("nrikit: the validation request cannot be encoded for the validators run dry")
}

// queueDryRuns queues the validation of a created container for each
// validator run dry whose scope it is in. Its closures keep the encoded
// request and the names only, not the creation.
func (c *creation) queueDryRuns() {
	if c.dryRunReq == nil {
		return
	}
	r, b := c.r, c.dryRunReq
	ctr := c.req.GetContainer()
	id, what := ctr.GetId(), containerName(c.req.GetPod(), ctr)
	for _, p := range c.dryRun {
		if p.gone() || !r.lifecycle.ContainerInScope(p, id) {
			continue
		}
		p.rollout.queue.Push(observe.Item{Size: len(b), Deliver: func(ctx context.Context) {
			r.validateDry(ctx, p, b, id, what)
		}})
	}
}

// containerName is "namespace/pod/container", as the log names it.
func containerName(pod *api.PodSandbox, ctr *api.Container) string {
	return pod.GetNamespace() + "/" + pod.GetName() + "/" + ctr.GetName()
}

// validateDry delivers one queued validation, within p's own timeout, and
// keeps its verdict: counted, logged (a rejection, at most once a minute),
// and in the container's record. A failed call is counted and handled as a
// notification's (observedPolicy): it gives no verdict.
func (r *Relay) validateDry(ctx context.Context, p *plugin, b []byte, id, what string) {
	const ev = api.Event_VALIDATE_CONTAINER_ADJUSTMENT
	req, err := decodeRequest[*api.ValidateContainerAdjustmentRequest](b)
	if err != nil {
		p.log.WithError(err).Warn("nrikit: a queued validation request could not be decoded; not delivered")
		return
	}
	var rsp *api.ValidateContainerAdjustmentResponse
	_ = r.deliver(ctx, observedPolicy, ev, p, p.policy, callBudget{timeout: p.timeout}, func(ctx context.Context) (err error) {
		rsp, err = p.svc.ValidateContainerAdjustment(ctx, withEncoding(req, b).to(p))
		return err
	})
	if rsp == nil {
		return
	}
	p.rollout.validated.Add(1)
	v := records.Verdict{Validator: p.id}
	if rsp.GetReject() {
		p.rollout.wouldReject.Add(1)
		v.Rejected, v.Reason = true, reasonOrDefault(rsp.GetReason())
		if log, ok := p.rollout.verdictLog.AllowEntry(p.log); ok {
			log.WithField("container", id).Warn(fmt.Sprintf("nrikit: validator %s would reject container %s: %s (validation = \"dry-run\")", p.id, what, v.Reason))
		}
	}
	r.cfg.Records.DryRun(id, v)
}

// defaultDryRun is what the default validator run dry counts and logs.
type defaultDryRun struct {
	wouldReject atomic.Uint64
	log         *ratelog.Limiter // one warning a minute
}

// DefaultValidatorWouldReject counts the creations the default validator,
// run dry, would have rejected.
func (r *Relay) DefaultValidatorWouldReject() uint64 { return r.defaultDry.wouldReject.Load() }

// wouldRejectByDefault keeps the default validator's rejection of a
// creation, run dry: for its record, counted, and logged at most once a
// minute. The creation proceeds.
func (c *creation) wouldRejectByDefault(ctx context.Context, err error) {
	r := c.r
	c.defaultVerdict = err.Error()
	r.defaultDry.wouldReject.Add(1)
	if log, ok := r.defaultDry.log.AllowEntry(r.logCtx(ctx)); ok {
		log.WithField("container", c.req.GetContainer().GetId()).WithError(err).
			Warn("nrikit: the default validator would reject the container (default_validator.dry_run); it is created")
	}
}

// recordDefaultVerdict keeps the default validator's dry-run rejection
// in the container's record.
func (c *creation) recordDefaultVerdict() {
	if c.defaultVerdict != "" {
		c.r.cfg.Records.DryRun(c.req.GetContainer().GetId(), records.Verdict{Validator: records.DefaultValidator, Rejected: true, Reason: c.defaultVerdict})
	}
}
