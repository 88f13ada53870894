// SPDX-License-Identifier: Apache-2.0

// PluginChange: joins, failures and departures, reported to the runtime.

package adaptation

import (
	"context"
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
func (f *changeFeed) send(c PluginChange) (err error) {
	c.Time = time.Now()
	f.recent.Add(nriChange(c))
	if f.fn == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	defer func() {
		if pe := panicIn(err); pe != nil {
			f.log.WithFields(logrus.Fields{"plugin": c.Plugin, "change": c.Change, "stack": pe.Stack}).
				WithError(pe).Error("nrikit: the runtime's PluginChanges callback panicked")
		}
	}()
	defer panics.Recover(&err)
	panics.Inject("changes.send", c.Plugin)
	f.fn(c)
	return nil
}

// nriChange is c in the form internal/status keeps.
func nriChange(c PluginChange) nri.Change {
	n := nri.Change{Change: nri.ChangeKind(c.Change), Plugin: c.Plugin, Kind: c.Kind, Revision: c.Revision, Phase: c.Phase, Reason: c.Reason, PID: c.PID, Time: c.Time}
	if c.Output != nil {
		n.Output = make([]nri.OutputLine, len(c.Output))
		for i, l := range c.Output {
			n.Output[i] = nri.OutputLine{Stream: l.Stream, Text: l.Text}
		}
	}
	return n
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
	return p
}

func changeOf(kind ChangeKind, p *plugin, phase, reason string) PluginChange {
	return PluginChange{Change: kind, Plugin: p.id, Kind: p.kind.String(), Revision: p.revisionName(), Phase: phase, Reason: reason, PID: p.conn.pid()}
}

// reportJoined reports that p has joined. It is called right after p entered
// the dispatch list, so nothing can report p's leaving before; reportLeft
// still waits for it, since the leaving may be decided on another goroutine.
// A panic in the callback on that report drops p: what p is called may
// have caused it, and a plugin the runtime's observer does not know of
// should not take its events.
func (a *Adaptation) reportJoined(p *plugin) {
	a.readiness.Joined(p.id)
	p.stats.Joined(time.Now())
	err := a.changes.send(changeOf(PluginJoined, p, "", ""))
	close(p.joinReported)
	if pe := panicIn(err); pe != nil {
		p.panicked.CompareAndSwap(nil, pe)
		a.drop(context.Background(), p, "", failLost) // at registration, in no call of the runtime
	}
}

// reportLeft reports that p, which had joined, is gone.
func (a *Adaptation) reportLeft(p *plugin, phase, reason string) {
	<-p.joinReported
	if reason != ReasonReplaced { // its successor was checked against the budget as it joined
		a.budget.Left(p.log)
	}
	change := changeOf(PluginLeft, p, phase, reason)
	change.Output = p.conn.output()
	a.readiness.Left(p.id, phase, reason)
	a.changes.send(change)
}
