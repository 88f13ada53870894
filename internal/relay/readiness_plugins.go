// SPDX-License-Identifier: Apache-2.0

// What the readiness gate asks of the active plugins and their admission, answered from the registry.

package relay

import (
	"strings"
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

// ExpectedTimeout is the request timeout a plugin the required name matches
// will get when it registers (applySettings): for "NN-name", that
// instance's; for a bare name, the longest any instance of it may get.
func (w readinessPlugins) ExpectedTimeout(name string) time.Duration {
	c := &w.r.cfg
	own := func(key string) (time.Duration, bool) {
		s, ok := c.Settings[key]
		return s.RequestTimeout, ok && s.RequestTimeout > 0
	}
	if _, bare, ok := indexed(name); ok {
		if d, ok := own(name); ok {
			return d
		}
		if d, ok := own(bare); ok {
			return d
		}
		return c.Request
	}
	worst, ok := own(name)
	if !ok {
		worst = c.Request
	}
	for key := range c.Settings {
		if _, bare, ok := indexed(key); ok && bare == name {
			if d, ok := own(key); ok {
				worst = max(worst, d)
			}
		}
	}
	return worst
}

// indexed splits "NN-name"; ok is false for a bare name, which may hold a
// "-" of its own.
func indexed(key string) (idx, name string, ok bool) {
	idx, name, ok = strings.Cut(key, "-")
	return idx, name, ok && api.ValidatePluginIndex(idx) == nil
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
