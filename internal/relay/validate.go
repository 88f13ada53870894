// SPDX-License-Identifier: Apache-2.0

// ValidateContainerAdjustment: consulting the validators of a creation.

package relay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/admission"
	"github.com/nrikit/nrikit/internal/nri"
)

// validators lists the plugins that validate a creation, nil if none.
func (r *Relay) validators() []*plugin { return admission.ValidatorsAmong(r.registry.snapshot()) }

// validate asks the default validator and every validator plugin (the
// validators listed as the creation began), all at once, to approve the
// merged response of a container being created. Any failure or rejection
// fails the creation; a validator that timed out or was lost is also
// dropped. A validator whose connection was already gone is skipped, as by
// the reference. It returns the validator plugins consulted, validators
// filtered in place.
func (r *Relay) validate(ctx context.Context, c *creation, merged *api.CreateContainerResponse) ([]*plugin, error) {
	dl := c.dl
	plugins := r.registry.snapshot()
	id := c.req.GetContainer().GetId()
	validators := slices.DeleteFunc(c.validators, func(p *plugin) bool {
		// Dropped meanwhile, or the runtime stops; or a creation outside
		// its scope (scope.go), which it never validates.
		return p.gone() || !slices.Contains(plugins, p) || !r.lifecycle.ContainerInScope(p, id)
	})
	if len(validators) == 0 && r.cfg.DefaultValidator == nil && c.dryRun == nil {
		return validators, nil
	}
	vreq := &api.ValidateContainerAdjustmentRequest{
		Adjust:  merged.GetAdjust(),
		Update:  merged.GetUpdate(),
		Owners:  c.result.Owners(),
		Plugins: c.handled.instances(plugins),
	}
	out, err := c.validationRequest(vreq)
	if err != nil {
		return nil, err
	}
	c.keepDryRunRequest(out)
	byDefault := c.validateByDefault(ctx, vreq)
	switch len(validators) {
	case 0:
		return validators, byDefault
	case 1: // on this goroutine, with nothing to gather
		return validators, errors.Join(byDefault, r.validateWith(ctx, dl, validators[0], out.to(validators[0])))
	}
	return validators, r.validateAtOnce(ctx, dl, validators, out, byDefault)
}

// validateAtOnce runs the validators at once, all but the last on
// goroutines of their own, the last on this one, and joins byDefault (the
// default validator's verdict) and theirs, in order.
func (r *Relay) validateAtOnce(ctx context.Context, dl eventDeadline, validators []*plugin, out *outgoing[*api.ValidateContainerAdjustmentRequest], byDefault error) error {
	for _, p := range validators {
		out.to(p) // encode once, before the validators run at once
	}
	errs := make([]error, 1+len(validators))
	errs[0] = byDefault
	var wg sync.WaitGroup
	last := len(validators) - 1
	for i, p := range validators[:last] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[1+i] = r.validateWith(ctx, dl, p, out.to(p))
		}()
	}
	errs[1+last] = r.validateWith(ctx, dl, validators[last], out.to(validators[last]))
	wg.Wait()
	return errors.Join(errs...)
}

// consulted is the set of plugins whose CreateContainer reply was taken for
// one creation. A nil set records nothing: a creation that no validator
// sees does not need it.
type consulted map[*plugin]struct{}

func (c consulted) add(p *plugin) {
	if c != nil {
		c[p] = struct{}{}
	}
}

// instances lists, in order, the plugins that took part in the creation:
// those still connected that either replied to its CreateContainer or do not
// take that event. One that timed out, failed, or was dropped during the
// creation is left out: validators, and the default validator's required
// plugins, must not count it as consulted. plugins is the registry as it is
// now; no plugin joins while a creation holds the event barrier.
func (c consulted) instances(plugins []*plugin) []*api.PluginInstance {
	out := make([]*api.PluginInstance, 0, len(plugins))
	for _, p := range plugins {
		if _, ok := c[p]; ok || !p.subscribed(api.Event_CREATE_CONTAINER) {
			out = append(out, &api.PluginInstance{Name: p.name, Index: p.idx})
		}
	}
	return out
}

// validateWith asks one validator, within its own timeout capped by the
// creation's deadline dl.
func (r *Relay) validateWith(ctx context.Context, dl eventDeadline, p *plugin, req *api.ValidateContainerAdjustmentRequest) error {
	const ev = api.Event_VALIDATE_CONTAINER_ADJUSTMENT
	budget := dl.forMandatory(p)
	if budget.timeout <= 0 {
		return r.notReached(ctx, ev, p, true, dl)
	}
	answered := false
	err := r.deliver(ctx, policyOf(ev), ev, p, p.policy, budget, func(ctx context.Context) error {
		rsp, err := p.svc.ValidateContainerAdjustment(ctx, req)
		if err != nil {
			return err
		}
		answered = true
		if rsp.GetReject() {
			return fmt.Errorf("%w: %s", ErrRejected, reasonOrDefault(rsp.GetReason()))
		}
		return nil
	})
	if err == nil && !answered {
		// Cannot happen: applyPolicy fails validation on every failure. Kept
		// so that a validator's silence can never pass for consent.
		return r.cfg.PluginError(p.id, ev.Name(), nri.WithCode(errors.New("no verdict"), nri.CodeRefused))
	}
	return err
}

func reasonOrDefault(reason string) string {
	if reason == "" {
		return "no reason given"
	}
	return reason
}
