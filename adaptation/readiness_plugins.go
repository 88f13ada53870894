// SPDX-License-Identifier: Apache-2.0

// What the readiness gate asks of the active plugins and their admission, answered from the registry.

package adaptation

import (
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/admission"
)

// gatePlugins is what the gate asks of the active plugins and of their
// admission. Its methods must not allocate: AwaitPlugins' fast path calls
// ActiveAs for each required plugin. They may be called with the tracker's
// lock held.
type gatePlugins interface {
	// ActiveAs finds the active plugin, not gone, that a required name
	// matches (see idMatches).
	ActiveAs(name string) (gatePlugin, bool)
	// BackoffUntil is when id's sync back-off ends; zero if it has none.
	BackoffUntil(id string) time.Time
	// RunPodSandboxWorstCase is how long a RunPodSandbox's plugin calls may
	// take with the active plugins: the sum of the request timeouts of
	// those that take it.
	RunPodSandboxWorstCase() time.Duration
}

// gatePlugin is an active plugin, as the gate sees it.
type gatePlugin struct {
	ID string // "idx-name"
	// TakesRunPodSandbox: it subscribed to RunPodSandbox, so a pod that
	// requires it expects its answer.
	TakesRunPodSandbox bool
}

// readinessPlugins is the readiness gate's view of a's plugins
// (gatePlugins). Its methods do not allocate.
type readinessPlugins struct{ a *Adaptation }

// ActiveAs finds the active plugin, not gone, that a required name matches:
// by its name alone or with its index, as the default validator matches
// them.
func (w readinessPlugins) ActiveAs(name string) (gatePlugin, bool) {
	for _, p := range w.a.registry.snapshot() {
		if idMatches(name, p.id) && !p.gone() {
			return gatePlugin{ID: p.id, TakesRunPodSandbox: p.subscribed(api.Event_RUN_POD_SANDBOX)}, true
		}
	}
	return gatePlugin{}, false
}

// BackoffUntil is when id's sync back-off ends; zero if it has none.
func (w readinessPlugins) BackoffUntil(id string) time.Time { return w.a.syncBackoff.Until(id) }

// RunPodSandboxWorstCase is the sum of the own timeouts of the active
// plugins that take RunPodSandbox.
func (w readinessPlugins) RunPodSandboxWorstCase() time.Duration {
	return admission.WorstCase(api.Event_RUN_POD_SANDBOX, w.a.registry.snapshot())
}

// tookPartIn is RunPodSandbox's reply collector with the readiness gate on:
// an answer is taking part.
func tookPartIn(g *sandboxGate) func(*plugin, *api.RunPodSandboxResponse) error {
	return func(p *plugin, _ *api.RunPodSandboxResponse) error {
		g.TookPart(p.id)
		return nil
	}
}
