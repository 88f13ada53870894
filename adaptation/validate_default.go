// SPDX-License-Identifier: Apache-2.0

// WithDefaultValidator: the reference's default validator, built in.

package adaptation

import (
	"context"
	"errors"
	"slices"

	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
)

// WithDefaultValidator turns on the default validator with a copy of the
// given configuration (see package validator); nil, or Enable false, leaves
// it off, and an empty name in RequiredPlugins is refused. It checks every
// container's merged adjustment after all plugins' CreateContainer, beside
// the validator plugins. It is part of the runtime, not a plugin: it is
// never dropped nor timed out, and plugins do not see it.
func WithDefaultValidator(cfg *validator.DefaultValidatorConfig) Option {
	return func(o *options) error {
		if cfg == nil || !cfg.Enable {
			o.defaultValidator = nil
			return nil
		}
		// A name that matches no plugin would fail every creation.
		if slices.Contains(cfg.RequiredPlugins, "") {
			return errors.New("nrikit: default validator: empty name in required_plugins")
		}
		o.defaultValidator = validator.NewDefaultValidator(cfg)
		return nil
	}
}

// defaultRejection is a rejection by the default validator: it reads as the
// validator's error, and is both ErrRejected and validator.ErrValidation.
type defaultRejection struct{ err error }

func (r defaultRejection) Error() string   { return r.err.Error() }
func (r defaultRejection) Unwrap() []error { return []error{ErrRejected, r.err} }

// validateByDefault runs the default validator, if configured, on the
// request the validator plugins get.
func (a *Adaptation) validateByDefault(ctx context.Context, req *api.ValidateContainerAdjustmentRequest) error {
	v := a.opts.defaultValidator
	if v == nil {
		return nil
	}
	if err := v.ValidateContainerAdjustment(ctx, req); err != nil {
		a.logCtx(ctx).WithField("event", api.Event_CREATE_CONTAINER.Name()).WithField("container", req.GetContainer().GetId()).
			WithError(err).Warn("nrikit: the default validator rejected the container")
		return defaultRejection{err}
	}
	return nil
}
