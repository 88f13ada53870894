// SPDX-License-Identifier: Apache-2.0

// FailurePolicy: a plugin's fail_request and keep_connected, declared or defaulted.

package relay

import (
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/readiness"
)

// failurePolicyFrom is the policy a plugin declared in its ConfigureResponse.
func failurePolicyFrom(declared *api.FailurePolicy) nri.FailurePolicy {
	return nri.FailurePolicy{FailRequest: declared.GetFailRequest(), KeepConnected: declared.GetKeepConnected()}
}

// failurePolicyFor is the failure policy that applies to p's call for one
// event, g being the readiness check of a RunPodSandbox (nil for any other
// event). It is the plugin's effective policy; features that make a plugin
// matter more for some requests refine it here, so that the fan-out and the
// failure table agree on it.
func (r *Relay) failurePolicyFor(p *plugin, g *readiness.Gate) nri.FailurePolicy {
	fp := p.policy
	if g.RequiredForSandbox(p.id) {
		fp.FailRequest = true
	}
	return fp
}
