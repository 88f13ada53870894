// SPDX-License-Identifier: Apache-2.0

// Running the default validator (Config.DefaultValidator) on a creation, beside the validator plugins.

package relay

import (
	"context"

	"github.com/nrikit/nrikit/api"
)

// defaultRejection is a rejection by the default validator: it reads as the
// validator's error, and is both ErrRejected and validator.ErrValidation.
type defaultRejection struct{ err error }

func (r defaultRejection) Error() string   { return r.err.Error() }
func (r defaultRejection) Unwrap() []error { return []error{ErrRejected, r.err} }

// validateByDefault runs the default validator, if configured, on the
// request the validator plugins get. Run dry, its rejection is kept, not
// returned (dryrun.go).
func (c *creation) validateByDefault(ctx context.Context, req *api.ValidateContainerAdjustmentRequest) error {
	r := c.r
	v := r.cfg.DefaultValidator
	if v == nil {
		return nil
	}
	if err := v.ValidateContainerAdjustment(ctx, req); err != nil {
		err = r.explainMissing(err, req)
		if v.DryRun() {
			c.wouldRejectByDefault(ctx, err)
			return nil
		}
		r.logCtx(ctx).WithField("event", api.Event_CREATE_CONTAINER.Name()).WithField("container", req.GetContainer().GetId()).
			WithError(err).Warn("nrikit: the default validator rejected the container")
		return defaultRejection{err}
	}
	return nil
}
