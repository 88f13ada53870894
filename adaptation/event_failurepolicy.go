// SPDX-License-Identifier: Apache-2.0

// FailurePolicy: a plugin's fail_request and keep_connected, declared or defaulted.

package adaptation

import (
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/readiness"
)

// FailurePolicy says what a plugin's timeout or lost connection means. A
// plugin may declare its own in ConfigureResponse (NRI v0.12.5); the runtime's
// default applies to plugins that declare none.
type FailurePolicy struct {
	// FailRequest makes a setup event fail when the plugin times out or is
	// lost, instead of continuing without it. It never fails a teardown or
	// notification event.
	FailRequest bool `json:"fail_request,omitempty" toml:"fail_request"`
	// KeepConnected keeps a plugin that only timed out, instead of dropping it.
	KeepConnected bool `json:"keep_connected,omitempty" toml:"keep_connected"`
}

// failurePolicyFrom is the policy a plugin declared in its ConfigureResponse.
func failurePolicyFrom(declared *api.FailurePolicy) FailurePolicy {
	return FailurePolicy{FailRequest: declared.GetFailRequest(), KeepConnected: declared.GetKeepConnected()}
}

// failurePolicyFor is the failure policy that applies to p's call for one
// event, g being the readiness check of a RunPodSandbox (nil for any other
// event). It is the plugin's effective policy; features that make a plugin
// matter more for some requests refine it here, so that the fan-out and the
// failure table agree on it.
func (a *Adaptation) failurePolicyFor(p *plugin, g *readiness.Gate) FailurePolicy {
	fp := p.policy
	if g.RequiredForSandbox(p.id) {
		fp.FailRequest = true
	}
	return fp
}
