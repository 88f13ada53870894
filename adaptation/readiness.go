// SPDX-License-Identifier: Apache-2.0

// Readiness: whether the node-level required plugins are active, and what happened to those that are not;
// AwaitPlugins, which holds a pod until its own are.

package adaptation

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/readiness"
)

// ErrPluginsNotReady: a pod's required plugins were not all active by the
// readiness bound, were lost while it was created, or did not answer its
// RunPodSandbox. The error names each missing plugin and what happened to
// it last. Its gRPC code is Unavailable (see GRPCStatus in the porting
// guide): the plugins may be back soon.
var ErrPluginsNotReady = readiness.ErrPluginsNotReady

// Readiness says whether every plugin the node requires is active: the
// node-level required plugins (required_plugins), and with the readiness
// gate on those that pods' annotations required and lacked within the
// last 10 minutes, until they join. With none of either it is always ready
// once started.
type Readiness struct {
	Ready bool `json:"ready"`
	// Since is when Ready took its value (New, for the first one).
	Since time.Time `json:"since"`
	// Required are the node-level required plugins.
	Required []string `json:"required,omitempty"`
	// Missing are the required plugins that are not active, in the order
	// of Required, then those pods lacked (each with its Pod).
	Missing []MissingPlugin `json:"missing,omitempty"`
	// Proceeded counts the pods created without all their required
	// plugins under on_timeout = "proceed": the RunPodSandbox calls that
	// went on although one of the pod's required plugins was missing, was
	// lost in it or did not answer it. AwaitPlugins letting a pod through
	// at its bound is not counted: the plugin may still join before the
	// pod's RunPodSandbox. Each pod counts once, as each pod has one
	// RunPodSandbox.
	Proceeded uint64 `json:"proceeded,omitempty"`
}

// MissingState is what a missing required plugin did last.
type MissingState string

// The states of a missing plugin, most telling first.
const (
	// MissingNeverConnected: no plugin of that name joined or failed to.
	MissingNeverConnected MissingState = "never-connected"
	// MissingLeft: it had joined and is gone (Reason says why).
	MissingLeft MissingState = "left"
	// MissingFailed: it tried to join and failed (Phase and Reason).
	MissingFailed MissingState = "failed"
	// MissingSyncBackoff: its synchronization timed out and it may not
	// register again before BackoffUntil.
	MissingSyncBackoff MissingState = "sync-backoff"
	// MissingSynchronizing: it registered and is synchronizing since Time.
	MissingSynchronizing MissingState = "synchronizing"
	// MissingNotStarted: the adaptation is not started (or stopping).
	MissingNotStarted MissingState = "not-started"
	// missingNoAnswer: it is active but did not answer the pod's
	// RunPodSandbox. Only RunPodSandbox's error or warning tells it;
	// Readiness never does, since the plugin is active.
	missingNoAnswer MissingState = "no-answer"
)

// MissingPlugin is one required plugin that is not active, and its story.
type MissingPlugin struct {
	// Name is the required name, as configured ("foo" or "10-foo").
	Name  string       `json:"name"`
	State MissingState `json:"state"`
	// Plugin is the instance last seen under that name ("10-foo").
	Plugin string    `json:"plugin,omitempty"`
	Phase  string    `json:"phase,omitempty"`
	Reason string    `json:"reason,omitempty"`
	Time   time.Time `json:"time,omitzero"`
	// BackoffUntil is when a plugin in its sync back-off may register again.
	BackoffUntil time.Time `json:"backoff_until,omitzero"`
	// Pod is, for a plugin no node-level setting requires, the last pod
	// ("namespace/name") whose required-plugins annotation named it and
	// that the gate held or created without it.
	Pod string `json:"pod,omitempty"`
}

// String tells the story in one line: `"foo" left at 10:04:05 (connection lost)`.
func (m MissingPlugin) String() string { return m.internal().String() }

// ReadinessCondition is Readiness shaped as a CRI RuntimeCondition, for a
// runtime to append to its status conditions.
type ReadinessCondition struct {
	Type    string
	Status  bool
	Reason  string
	Message string
}

// The CRI condition's type, and its reason when not ready.
const (
	ConditionPluginsReady     = "NRIPluginsReady"
	ConditionPluginsNotActive = "NRIRequiredPluginsNotActive"
)

// Condition is r as a CRI condition: Status is Ready, and when not ready
// the message tells each missing plugin's story.
func (r Readiness) Condition() ReadinessCondition {
	c := ReadinessCondition{Type: ConditionPluginsReady, Status: r.Ready}
	if !r.Ready {
		c.Reason = ConditionPluginsNotActive
		c.Message = semicolonList(r.Missing)
	}
	return c
}

// semicolonList is the texts of xs, "; " between them: the missing plugins'
// stories, the events over budget.
func semicolonList[T fmt.Stringer](xs []T) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = x.String()
	}
	return strings.Join(parts, "; ")
}

// Readiness reports whether the node-level required plugins are active.
func (a *Adaptation) Readiness() Readiness { return readinessOf(a.relay.Readiness().State()) }

// AwaitPlugins holds a pod's creation until its required plugins are
// active: the default validator's required_plugins and those its
// pod-scoped required-plugins annotation adds. The runtime calls it at the
// start of RunPodSandbox, before it takes its NRI lock or a BlockPluginSync
// block, never under a lock its SyncFn takes: a plugin joins only once
// SyncFn has run, so a wait under that lock would wait out its bound.
//
// It returns nil at once, without allocating, when the gate is off
// (plugin_readiness.wait is 0), when the pod's namespace is exempt or the
// pod tolerates missing plugins (the pod-scoped
// tolerate_missing_plugins_annotation says "true"), or when its required
// plugins are active. Otherwise it waits, woken by plugins joining, until
// they are all active, until wait has passed, until what is left to ctx's
// deadline is only what the pod's RunPodSandbox needs in it
// (deadline_reserve, plus the sum of the request timeouts of the active
// plugins that take RunPodSandbox), or until Stop. At that bound, with
// on_timeout "fail" it returns an error wrapping ErrPluginsNotReady that
// tells each missing plugin's story, and with "proceed" it logs a warning
// and returns nil (the pod is counted in Readiness.Proceeded if its
// RunPodSandbox too goes on without them). A missing plugin whose sync
// back-off outlasts the bound meets the bound at once, as does a pod beyond
// 1,024 waiting ones. It fails at once before Start and once Stop began
// (Stop ends the waits), and returns ctx's error when ctx is cancelled.
//
// RunPodSandbox checks the pod's required plugins again, so a plugin lost
// between AwaitPlugins and RunPodSandbox, or one that does not answer the
// pod's RunPodSandbox, fails the pod as well.
func (a *Adaptation) AwaitPlugins(ctx context.Context, pod *api.PodSandbox) error {
	return a.relay.Readiness().Await(ctx, pod)
}

// readinessOf is the tracker's state in the runtime's form.
func readinessOf(s readiness.State) Readiness {
	r := Readiness{Ready: s.Ready, Since: s.Since, Required: s.Required, Proceeded: s.Proceeded}
	if s.Missing != nil {
		r.Missing = make([]MissingPlugin, len(s.Missing))
		for i, m := range s.Missing {
			r.Missing[i] = missingPluginOf(m)
		}
	}
	return r
}

// missingPluginOf is the tracker's story of a missing plugin in the
// runtime's form.
func missingPluginOf(m readiness.Missing) MissingPlugin {
	return MissingPlugin{Name: m.Name, State: MissingState(m.State), Plugin: m.Plugin, Phase: m.Phase, Reason: m.Reason, Time: m.Time, BackoffUntil: m.BackoffUntil, Pod: m.Pod}
}

// internal is m in the tracker's form, which tells its story.
func (m MissingPlugin) internal() readiness.Missing {
	return readiness.Missing{Name: m.Name, State: readiness.MissingState(m.State), Plugin: m.Plugin, Phase: m.Phase, Reason: m.Reason, Time: m.Time, BackoffUntil: m.BackoffUntil, Pod: m.Pod}
}
