// SPDX-License-Identifier: Apache-2.0

// What the gate asks of the active plugins, and the one rule it matches a required name to a plugin by.

package readiness

import (
	"strings"
	"time"

	"github.com/nrikit/nrikit/api"
)

// Plugins is what the gate asks of the active plugins and of their
// admission. Its methods must not allocate: AwaitPlugins' fast path calls
// ActiveAs for each required plugin. They may be called with the tracker's
// lock held.
type Plugins interface {
	// ActiveAs finds the active plugin, not gone, that a required name
	// matches (see Matches).
	ActiveAs(name string) (Plugin, bool)
	// BackoffUntil is when id's sync back-off ends; zero if it has none.
	BackoffUntil(id string) time.Time
	// RunPodSandboxWorstCase is how long a RunPodSandbox's plugin calls may
	// take with the active plugins: the sum of the request timeouts of
	// those that take it.
	RunPodSandboxWorstCase() time.Duration
	// OutOfScope tells whether pod is outside the scope of pods the
	// operator gave the plugin a required name matches (its filter): the
	// plugin never hears of such a pod, so the pod does not require it.
	OutOfScope(name string, pod *api.PodSandbox) bool
	// ExpectedTimeout is the request timeout a plugin the required name
	// matches will have once it joins (the longest, if the name matches
	// instances that would have different ones): what its RunPodSandbox
	// call may take.
	ExpectedTimeout(name string) time.Duration
}

// Plugin is an active plugin, as the gate sees it.
type Plugin struct {
	ID string // "idx-name"
	// TakesRunPodSandbox: it subscribed to RunPodSandbox, so a pod that
	// requires it expects its answer.
	TakesRunPodSandbox bool
}

// Matches tells whether a required name ("name" or "idx-name") matches the
// plugin id "idx-name": the one rule the readiness gate matches required
// plugins by, active or in their history, as the default validator does.
func Matches(name, id string) bool {
	if name == id {
		return true
	}
	idx, pname, ok := strings.Cut(id, "-")
	return ok && idx != "" && pname == name
}
