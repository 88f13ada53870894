// SPDX-License-Identifier: Apache-2.0

// PluginChange: joins, failures and departures, reported to the runtime.

package adaptation

import (
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/panics"
	"github.com/nrikit/nrikit/internal/status"
)

// ChangeKind says what happened to a plugin.
type ChangeKind string

// The changes WithPluginChanges reports.
const (
	// PluginJoined: the plugin is synchronized and takes events.
	PluginJoined ChangeKind = "joined"
	// PluginLeft: a plugin that had joined is gone: dropped by the event
	// policy, its connection lost, replaced by a new instance, or shut down
	// by Stop.
	PluginLeft ChangeKind = "left"
	// PluginFailed: the plugin never joined. It failed to start, register,
	// configure or synchronize (Phase says which).
	PluginFailed ChangeKind = "failed"
	// PluginSkipped: a file in the plugin path that nrikit does not start
	// (bad name, not executable, WASM).
	PluginSkipped ChangeKind = "skipped"
)

// PluginChange is one change in the set of plugins, for a runtime or tool
// that reports plugins to operators.
type PluginChange struct {
	Change ChangeKind `json:"change"`
	// Plugin is "NN-name"; a skipped file's name; "unregistered" for an
	// external connection that failed before registering.
	Plugin string `json:"plugin"`
	Kind   string `json:"kind"`
	// Revision is the protocol revision the plugin registered on
	// (RevisionV1alpha1, RevisionV1beta1); empty for builtin plugins and
	// for plugins that failed before registering.
	Revision string `json:"revision,omitempty"`
	// Phase is what the plugin was doing when it failed or left: "start",
	// "register", "configure", "synchronize", an event's name; empty when
	// it left while idle (connection lost, replaced, Stop) or was skipped.
	Phase string `json:"phase,omitempty"`
	// Reason says why it failed, left or was skipped, with the process's
	// exit status when a launched plugin ended on its own.
	Reason string    `json:"reason,omitempty"`
	PID    int       `json:"pid,omitempty"`
	Time   time.Time `json:"time"`
	// Output is the last lines a pre-installed plugin's process wrote to
	// its stdout and stderr (see WithPluginOutput), in PluginFailed and
	// PluginLeft changes; empty for other kinds of plugin.
	Output []OutputLine `json:"output,omitempty"`
	// LastError is, in a PluginLeft change, the instance's last failed
	// call, as Status showed it before it left; nil if none failed.
	LastError *PluginLastError `json:"last_error,omitempty"`
}

// changeFeed hands changes to the runtime's callback one at a time, so that
// the callback sees a plugin's changes in order and needs no lock of its own.
type changeFeed struct {
	mu     sync.Mutex
	fn     func(PluginChange)
	log    *logrus.Entry
	recent status.RecentChanges // for Status
}

// send hands c to the callback. The callback is called on nrikit's
// goroutines with what a plugin chose (its name, why it failed), so a panic
// in it is not let end the process: it is logged with its stack and
// returned.
func (f *changeFeed) send(n nri.Change) (err error) {
	f.recent.Add(n)
	if f.fn == nil {
		return nil
	}
	c := pluginChange(n)
	f.mu.Lock()
	defer f.mu.Unlock()
	defer func() {
		if pe, ok := err.(*panics.Error); ok {
			f.log.WithFields(logrus.Fields{"plugin": c.Plugin, "change": c.Change, "stack": pe.Stack}).
				WithError(pe).Error("nrikit: the runtime's PluginChanges callback panicked")
		}
	}()
	defer panics.Recover(&err)
	panics.Inject("changes.send", c.Plugin)
	f.fn(c)
	return nil
}

// pluginChange is c in the form WithPluginChanges and Status report.
func pluginChange(c nri.Change) PluginChange {
	p := PluginChange{Change: ChangeKind(c.Change), Plugin: c.Plugin, Kind: c.Kind, Revision: c.Revision, Phase: c.Phase, Reason: c.Reason, PID: c.PID, Time: c.Time}
	if c.Output != nil {
		p.Output = make([]OutputLine, len(c.Output))
		for i, l := range c.Output {
			p.Output[i] = OutputLine{Stream: l.Stream, Text: l.Text}
		}
	}
	p.LastError = lastErrorOf(c.LastError)
	return p
}
