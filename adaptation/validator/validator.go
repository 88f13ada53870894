// SPDX-License-Identifier: Apache-2.0

package validator

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nrikit/nrikit/api"
)

// ErrValidation: the default validator rejected a container's creation.
var ErrValidation = errors.New("nrikit: rejected by the default validator")

// DefaultValidator checks a merged CreateContainer adjustment against a
// DefaultValidatorConfig. It is safe for concurrent use.
type DefaultValidator struct {
	cfg DefaultValidatorConfig
	// The pod-scoped keys of the annotations, for ForPod.
	tolerateKeys, requiredKeys podKeys
}

// NewDefaultValidator makes a validator with a copy of cfg (nil: no rule).
// It checks whatever cfg says, Enable or not: Enable is for the runtime's
// wiring (adaptation.WithDefaultValidator).
func NewDefaultValidator(cfg *DefaultValidatorConfig) *DefaultValidator {
	v := &DefaultValidator{requiredKeys: podScoped(RequiredPlugins)}
	if cfg != nil {
		v.cfg = cfg.clone()
	}
	if key := v.cfg.TolerateMissingAnnotation; key != "" {
		v.tolerateKeys = podScoped(key)
	}
	return v
}

// DryRun tells whether the configuration runs the rules dry
// (DefaultValidatorConfig.DryRun). ValidateContainerAdjustment still
// returns what it would reject; not enforcing it is its caller's part.
func (v *DefaultValidator) DryRun() bool { return v.cfg.DryRun }

// ValidateContainerAdjustment checks every rule and returns an error wrapping
// ErrValidation that names, for each violated rule, its config key and the
// plugins at fault, or the required plugins that did not handle the
// creation. req.Plugins must list the plugins that handled it.
func (v *DefaultValidator) ValidateContainerAdjustment(_ context.Context, req *api.ValidateContainerAdjustmentRequest) error {
	var reasons []string
	for _, check := range rules {
		if reason := check(&v.cfg, req); reason != "" {
			reasons = append(reasons, reason)
		}
	}
	if len(reasons) == 0 {
		return nil
	}
	pod, ctr := req.GetPod(), req.GetContainer()
	return fmt.Errorf("%w: container %s/%s/%s: %s", ErrValidation,
		pod.GetNamespace(), pod.GetName(), ctr.GetName(), strings.Join(reasons, "; "))
}
