// SPDX-License-Identifier: Apache-2.0

// The readiness rule inside RunPodSandbox: a pod's required plugins must take part in its creation.

package adaptation

import (
	"github.com/nrikit/nrikit/api"
)

// requiredForSandbox tells whether p is one of the required plugins of the
// pod whose RunPodSandbox req is, with the gate on and on_timeout "fail":
// its timeout or loss then fails the sandbox, whatever its own policy.
// Under "proceed" the plugin's own policy applies, and the check after the
// fan-out warns.
func (r *readinessTracker) requiredForSandbox(p *plugin, ev api.Event, req any) bool {
	if ev != api.Event_RUN_POD_SANDBOX || !r.on() || r.opts.onTimeout != ReadinessFail {
		return false
	}
	run, ok := req.(*api.RunPodSandboxRequest)
	if !ok {
		return false
	}
	required, err := r.requirementOf(run.GetPod())
	if err != nil {
		return true // the pod is failed after the fan-out; what it asked of p is unclear
	}
	for _, name := range required {
		if name == p.name || name == p.id {
			return true
		}
	}
	return false
}

// checkSandboxPlugins runs after a successful RunPodSandbox fan-out: each
// of the pod's required plugins must still be active. The event barrier
// keeps plugins from joining during the fan-out, so one active now was in
// it: it answered, or was skipped only because it did not subscribe or
// already knew the pod. One that was missing, or was lost during the
// fan-out, fails the pod with ErrPluginsNotReady (a warning under
// "proceed").
func (a *Adaptation) checkSandboxPlugins(pod *api.PodSandbox) error {
	required, err := a.readiness.requirementOf(pod)
	if err != nil || len(required) == 0 || a.allActive(required) {
		return err
	}
	return a.atBound(pod, required, "missing during RunPodSandbox")
}
