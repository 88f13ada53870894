// SPDX-License-Identifier: Apache-2.0

// The gate's state: whether the node-level required plugins are active, and the story of each missing one.

package readiness

import (
	"fmt"
	"strings"
	"time"

	"github.com/nrikit/nrikit/internal/nri"
)

// ErrPluginsNotReady: a pod's required plugins were not all active by the
// readiness bound, were lost while it was created, or did not answer its
// RunPodSandbox. The error names each missing plugin and what happened to
// it last. Its gRPC code is Unavailable: the plugins may be back soon.
var ErrPluginsNotReady error = nri.NewCoded(nri.CodeUnavailable, "nrikit: required plugins not ready")

// State says whether every node-level required plugin is active: the
// tracker's form of adaptation.Readiness.
type State struct {
	Ready bool
	// Since is when Ready took its value (New, for the first one).
	Since time.Time
	// Required are the node-level required plugins.
	Required []string
	// Missing are the required plugins that are not active, in the order
	// of Required.
	Missing []Missing
	// Proceeded counts the pods created without all their required
	// plugins under on_timeout = "proceed".
	Proceeded uint64
}

// MissingState is what a missing required plugin did last.
type MissingState string

// The states of a missing plugin, most telling first; the values of
// adaptation's MissingState constants.
const (
	// NeverConnected: no plugin of that name joined or failed to.
	NeverConnected MissingState = "never-connected"
	// Left: it had joined and is gone (Reason says why).
	Left MissingState = "left"
	// Failed: it tried to join and failed (Phase and Reason).
	Failed MissingState = "failed"
	// SyncBackoff: its synchronization timed out and it may not register
	// again before BackoffUntil.
	SyncBackoff MissingState = "sync-backoff"
	// Synchronizing: it registered and is synchronizing since Time.
	Synchronizing MissingState = "synchronizing"
	// NotStarted: the adaptation is not started (or stopping).
	NotStarted MissingState = "not-started"
	// NoAnswer: it is active but did not answer the pod's RunPodSandbox.
	// Only RunPodSandbox's error or warning tells it; State never does,
	// since the plugin is active.
	NoAnswer MissingState = "no-answer"
	// JoinedLate: it joined while the pod waited, too late for the pod's
	// deadline. Only AwaitPlugins' error or warning tells it.
	JoinedLate MissingState = "joined-late"
)

// Missing is one required plugin that is not active, and its story: the
// tracker's form of adaptation.MissingPlugin.
type Missing struct {
	// Name is the required name, as configured ("foo" or "10-foo").
	Name  string
	State MissingState
	// Plugin is the instance last seen under that name ("10-foo").
	Plugin string
	Phase  string
	Reason string
	Time   time.Time
	// BackoffUntil is when a plugin in its sync back-off may register again.
	BackoffUntil time.Time
	// Pod is, for a plugin no node-level setting requires, the last pod
	// ("namespace/name") whose annotation required it and that lacked it.
	Pod string
}

// String tells the story in one line: `"foo" left at 10:04:05 (connection
// lost)`, and for a plugin a pod required, `(required by pod default/web)`.
func (m Missing) String() string {
	if m.Pod != "" {
		return m.story() + " (required by pod " + m.Pod + ")"
	}
	return m.story()
}

func (m Missing) story() string {
	at := func(t time.Time) string { return t.Format(time.TimeOnly) }
	who := fmt.Sprintf("%q", m.Name)
	if m.Plugin != "" && m.Plugin != m.Name {
		who += " (" + m.Plugin + ")"
	}
	switch m.State {
	case Left:
		return fmt.Sprintf("%s left at %s: %s", who, at(m.Time), m.Reason)
	case Failed:
		return fmt.Sprintf("%s failed to join at %s, during %s: %s", who, at(m.Time), m.Phase, m.Reason)
	case SyncBackoff:
		return fmt.Sprintf("%s is in its sync back-off until %s", who, at(m.BackoffUntil))
	case Synchronizing:
		return fmt.Sprintf("%s registered and is synchronizing since %s", who, at(m.Time))
	case NoAnswer:
		return fmt.Sprintf("%s did not answer RunPodSandbox (timed out, or the event's deadline left it no time)", who)
	case JoinedLate:
		return fmt.Sprintf("%s joined too late for this pod's deadline", who)
	case NotStarted:
		return fmt.Sprintf("%s: NRI is not started", who)
	}
	return who + " never connected"
}

// stories is the missing plugins' stories, "; " between them: the first
// maxStories, then how many more.
func stories(missing []Missing) string {
	shown := missing[:min(len(missing), maxStories)]
	parts := make([]string, len(shown))
	for i, m := range shown {
		parts[i] = m.String()
	}
	if more := len(missing) - len(shown); more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", more))
	}
	return strings.Join(parts, "; ")
}

// maxStories bounds the missing plugins an error or a log line tells of.
const maxStories = 8
