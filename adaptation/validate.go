package adaptation

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/merge"
)

// validate asks every validator, all at once, to approve the merged
// response of a container being created. Any failure or rejection fails
// the creation; a validator that timed out or was lost is also dropped.
// One whose connection was already gone is skipped, as by the reference.
func (a *Adaptation) validate(ctx context.Context, req *api.CreateContainerRequest, result *merge.Create, merged *api.CreateContainerResponse) error {
	plugins := a.registry.snapshot()
	var validators []*plugin
	instances := make([]*api.PluginInstance, 0, len(plugins))
	for _, p := range plugins {
		instances = append(instances, &api.PluginInstance{Name: p.name, Index: p.idx})
		if p.subscribed(api.Event_VALIDATE_CONTAINER_ADJUSTMENT) && !p.gone() {
			validators = append(validators, p)
		}
	}
	if len(validators) == 0 {
		return nil
	}
	vreq := &api.ValidateContainerAdjustmentRequest{
		Pod:       req.GetPod(),
		Container: result.Original(),
		Adjust:    merged.GetAdjust(),
		Update:    merged.GetUpdate(),
		Owners:    result.Owners(),
		Plugins:   instances,
	}
	out := newOutgoing(vreq, true)
	for _, p := range validators {
		out.to(p) // encode once, before the validators run at once
	}
	errs := make([]error, len(validators))
	var wg sync.WaitGroup
	for i, p := range validators {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = a.validateWith(ctx, p, out.to(p))
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (a *Adaptation) validateWith(ctx context.Context, p *plugin, req *api.ValidateContainerAdjustmentRequest) error {
	const ev = api.Event_VALIDATE_CONTAINER_ADJUSTMENT
	answered := false
	err := a.deliver(ctx, policyOf(ev), ev, p, func(ctx context.Context) error {
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
		return &PluginError{Plugin: p.id, Op: ev.Name(), Err: errors.New("no verdict")}
	}
	return err
}

func reasonOrDefault(reason string) string {
	if reason == "" {
		return "no reason given"
	}
	return reason
}
