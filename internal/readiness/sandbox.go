// SPDX-License-Identifier: Apache-2.0

// The readiness rule inside RunPodSandbox: a pod's required plugins must take part in its creation.

package readiness

import (
	"slices"
	"sync"

	"github.com/nrikit/nrikit/api"
)

// Gate is one RunPodSandbox's readiness check, made with the gate on: the
// pod's required plugins, resolved once for the whole fan-out, and those of
// its plugins that took part in it. A nil *Gate is the gate off, or a pod
// that requires nothing; its methods then do nothing.
//
// It knows the plugins by id: the event barrier keeps plugins from joining
// during the fan-out, so the ids of the active plugins are unique there.
type Gate struct {
	r        *Tracker
	pod      *api.PodSandbox
	required []string
	err      error // the pod's annotation could not be read

	mu sync.Mutex // a call's reply may be collected as its timeout ends it
	// tookPart answered RunPodSandbox, or were rightly not called: the
	// lifecycle contract knew they already knew the pod.
	tookPart []string
}

// SandboxGate resolves pod's requirement for its RunPodSandbox; nil, with
// no allocation, when the gate is off or the pod requires nothing.
func (r *Tracker) SandboxGate(pod *api.PodSandbox) *Gate {
	required, err := r.requirementOf(pod)
	if err == nil && len(required) == 0 {
		return nil
	}
	return &Gate{r: r, pod: pod, required: required, err: err}
}

// Requires tells whether the plugin id is one of the pod's required
// plugins; true too when the pod's annotation cannot be read, since what it
// asked of the plugin is then unclear (the pod fails after the fan-out).
func (g *Gate) Requires(id string) bool {
	if g == nil {
		return false
	}
	if g.err != nil {
		return true
	}
	for _, name := range g.required {
		if Matches(name, id) {
			return true
		}
	}
	return false
}

// RequiredForSandbox tells whether the plugin id's timeout or loss fails
// the pod's sandbox whatever its own policy: it is one of the pod's
// required plugins and on_timeout is "fail". Under "proceed" the plugin's
// own policy applies, and the check after the fan-out warns.
func (g *Gate) RequiredForSandbox(id string) bool {
	return g != nil && !g.r.cfg.Proceed && g.Requires(id)
}

// TookPart notes that the plugin id answered the pod's RunPodSandbox, or
// rightly was not called for it.
func (g *Gate) TookPart(id string) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tookPart = append(g.tookPart, id)
}

// silent lists the pod's required plugins that are active, take
// RunPodSandbox, and did not take part in it: they timed out and were kept,
// or the event's deadline cut or skipped their call.
func (g *Gate) silent() []Missing {
	g.mu.Lock()
	defer g.mu.Unlock()
	var silent []Missing
	for _, name := range g.required {
		p, ok := g.r.plugins.ActiveAs(name)
		if !ok || !p.TakesRunPodSandbox || slices.Contains(g.tookPart, p.ID) {
			continue
		}
		silent = append(silent, Missing{Name: name, State: NoAnswer, Plugin: p.ID})
	}
	return silent
}

// Check runs after a successful RunPodSandbox fan-out: each of the pod's
// required plugins must still be active and, if it takes RunPodSandbox,
// must have answered it. The event barrier keeps plugins from joining
// during the fan-out, so one active now was in it. One that was missing,
// was lost during the fan-out or did not answer fails the pod with
// ErrPluginsNotReady; under "proceed" the pod goes on, with a warning, and
// is counted in State.Proceeded.
func (g *Gate) Check() error {
	if g == nil {
		return nil
	}
	if g.err != nil {
		return g.err
	}
	r := g.r
	missing := append(r.missing(g.required), g.silent()...)
	if len(missing) == 0 {
		return nil
	}
	err := r.notReady(g.pod, missing, "missing during RunPodSandbox, or did not answer it",
		"nrikit: pod created without its required plugins (plugin_readiness.on_timeout = proceed)")
	if err == nil {
		r.proceeded.Add(1)
	}
	return err
}
