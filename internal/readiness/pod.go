// SPDX-License-Identifier: Apache-2.0

// What a pod requires: the default validator's required plugins for it, unless it is exempt.

package readiness

import (
	"fmt"
	"slices"

	"github.com/nrikit/nrikit/api"
)

// requirementOf is what a pod requires, nil when it is exempt or the gate
// is off: its namespace is exempt, or it tolerates missing plugins. It does
// not allocate for a pod without the validator's annotations.
func (r *Tracker) requirementOf(pod *api.PodSandbox) ([]string, error) {
	if r.cfg.Validator == nil || !r.on() {
		return nil, nil
	}
	ns := pod.GetNamespace()
	if slices.Contains(r.cfg.Exempt, ns) {
		return nil, nil
	}
	req, err := r.cfg.Validator.ForPod(pod)
	if err != nil {
		return nil, fmt.Errorf("%w: pod %s/%s: %w", ErrPluginsNotReady, ns, pod.GetName(), err)
	}
	if req.Tolerated {
		return nil, nil
	}
	return r.inScopeOf(pod, req.Plugins), nil
}

// inScopeOf leaves out of required the plugins whose scope leaves pod out;
// it allocates only when it leaves one out.
func (r *Tracker) inScopeOf(pod *api.PodSandbox, required []string) []string {
	for i, name := range required {
		if r.plugins.OutOfScope(name, pod) {
			kept := slices.Clone(required[:i])
			for _, other := range required[i+1:] {
				if !r.plugins.OutOfScope(other, pod) {
					kept = append(kept, other)
				}
			}
			return kept
		}
	}
	return required
}
