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
// adjustment of a container being created. Any failure or rejection fails
// the creation; a validator that timed out or was lost is also dropped.
func (a *Adaptation) validate(ctx context.Context, req *api.CreateContainerRequest, result *merge.Create) error {
	plugins := a.registry.snapshot()
	var validators []*plugin
	instances := make([]*api.PluginInstance, 0, len(plugins))
	for _, p := range plugins {
		instances = append(instances, &api.PluginInstance{Name: p.name, Index: p.idx})
		if p.subscribed(api.Event_VALIDATE_CONTAINER_ADJUSTMENT) {
			validators = append(validators, p)
		}
	}
	if len(validators) == 0 {
		return nil
	}
	merged := result.Response()
	vreq := &api.ValidateContainerAdjustmentRequest{
		Pod:       req.GetPod(),
		Container: result.Original(),
		Adjust:    merged.GetAdjust(),
		Update:    merged.GetUpdate(),
		Owners:    result.Owners(),
		Plugins:   instances,
	}
	errs := make([]error, len(validators))
	var wg sync.WaitGroup
	for i, p := range validators {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = a.validateWith(ctx, p, vreq)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (a *Adaptation) validateWith(ctx context.Context, p *plugin, req *api.ValidateContainerAdjustmentRequest) error {
	const ev = api.Event_VALIDATE_CONTAINER_ADJUSTMENT
	var rsp *api.ValidateContainerAdjustmentResponse
	err := a.deliver(ctx, policyOf(ev), ev, p, func(ctx context.Context) (err error) {
		rsp, err = p.svc.ValidateContainerAdjustment(ctx, req)
		return err
	})
	if err != nil {
		return err
	}
	if rsp == nil {
		// Timed out or lost, and the policy let the event go on: a
		// validator's silence is never consent.
		return &PluginError{Plugin: p.id, Op: eventOp(ev), Err: errors.New("no verdict")}
	}
	if rsp.GetReject() {
		reason := rsp.GetReason()
		if reason == "" {
			reason = "no reason given"
		}
		a.opts.metrics.PluginInvoked(p.id, ev, OutcomeRejected, 0)
		return &PluginError{Plugin: p.id, Op: eventOp(ev), Err: fmt.Errorf("%w: %s", ErrRejected, reason)}
	}
	return nil
}
