// SPDX-License-Identifier: Apache-2.0

// What the readiness gate asks of the active plugins and their admission, answered from the registry.

package relay

import (
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/admission"
	"github.com/nrikit/nrikit/internal/readiness"
)

// readinessPlugins is the readiness gate's view of the relay's plugins
// (readiness.Plugins). Its methods do not allocate.
type readinessPlugins struct{ r *Relay }

// ActiveAs finds the active plugin, not gone, that a required name matches:
// by its name alone or with its index, as the default validator matches
// them.
func (w readinessPlugins) ActiveAs(name string) (readiness.Plugin, bool) {
	for _, p := range w.r.registry.snapshot() {
		if readiness.Matches(name, p.id) && !p.gone() {
			return readiness.Plugin{ID: p.id, TakesRunPodSandbox: p.subscribed(api.Event_RUN_POD_SANDBOX)}, true
		}
	}
	return readiness.Plugin{}, false
}

// BackoffUntil is when id's sync back-off ends; zero if it has none.
func (w readinessPlugins) BackoffUntil(id string) time.Time { return w.r.syncBackoff.Until(id) }

// RunPodSandboxWorstCase is the sum of the own timeouts of the active
// plugins that take RunPodSandbox.
func (w readinessPlugins) RunPodSandboxWorstCase() time.Duration {
	return admission.WorstCase(api.Event_RUN_POD_SANDBOX, w.r.registry.snapshot())
}

// tookPartIn is RunPodSandbox's reply collector with the readiness gate on:
// an answer is taking part.
func tookPartIn(g *readiness.Gate) func(*plugin, *api.RunPodSandboxResponse) error {
	return func(p *plugin, _ *api.RunPodSandboxResponse) error {
		g.TookPart(p.id)
		return nil
	}
}

// OutOfScope tells whether pod is outside the scope of the plugin a
// required name matches: the pod then does not require it.
func (w readinessPlugins) OutOfScope(name string, pod *api.PodSandbox) bool {
	if !w.r.filters {
		return false
	}
	f := w.r.filterOf(name)
	return f != nil && !f.Matches(pod)
}
