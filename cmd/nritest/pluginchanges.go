// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"sync"

	"github.com/nrikit/nrikit/adaptation"
)

// PluginChangeReport is a plugin that did not join, or that joined or left
// while the lifecycle ran.
type PluginChangeReport struct {
	Plugin string `json:"plugin"`
	Kind   string `json:"kind"`
	// Revision is the protocol revision it registered on, if it got so far.
	Revision string `json:"revision,omitempty"`
	Change   string `json:"change"`          // failed, skipped, joined, left
	Phase    string `json:"phase,omitempty"` // what it was doing: register, configure, an event...
	Reason   string `json:"reason,omitempty"`
	PID      int    `json:"pid,omitempty"`
	// Output is the last lines a pre-installed plugin's process wrote:
	// outputShown of them for a plugin that failed or was dropped, all
	// that nrikit kept of every plugin listed with -v.
	Output []adaptation.OutputLine `json:"output,omitempty"`
}

// outputShown is how many of a plugin's last output lines a report shows
// without -v.
const outputShown = 20

// pluginChanges keeps what nrikit reports through WithPluginChanges, less
// the ordinary: the joins before the lifecycle starts and the final Stop.
type pluginChanges struct {
	mu      sync.Mutex
	running bool // the lifecycle has started
	list    []PluginChangeReport
	// allOutput keeps all the output lines nrikit kept (-v), not only the
	// last outputShown.
	allOutput bool
	// progress, while set, gets a line per change (progress.go).
	progress        io.Writer
	announced       func(kind string) bool
	refusedExternal []string
	joinsAnnounced  map[string]bool
	changed         chan struct{} // closed at each change announced
}

// newPluginChanges collects the changes of one run; allOutput (-v) keeps
// every output line nrikit kept for a plugin, not only the last outputShown.
func newPluginChanges(allOutput bool) *pluginChanges {
	return &pluginChanges{allOutput: allOutput, changed: make(chan struct{}), joinsAnnounced: map[string]bool{}}
}

func (c *pluginChanges) add(ch adaptation.PluginChange) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.progressLine(ch)
	ordinary := ch.Change == adaptation.PluginJoined && !c.running ||
		ch.Change == adaptation.PluginLeft && ch.Reason == adaptation.ReasonRuntimeStopping
	if ordinary {
		return
	}
	output := ch.Output
	if !c.allOutput {
		output = shownOutput(ch)
	}
	c.list = append(c.list, PluginChangeReport{
		Plugin: ch.Plugin, Kind: ch.Kind, Revision: ch.Revision, Change: string(ch.Change), Phase: ch.Phase, Reason: ch.Reason, PID: ch.PID,
		Output: output,
	})
}

// shownOutput is the output a report shows without -v: the last
// outputShown lines of a plugin that failed or was dropped, none of one
// that left in order (replaced, restarted).
func shownOutput(ch adaptation.PluginChange) []adaptation.OutputLine {
	switch {
	case ch.Change == adaptation.PluginLeft && (ch.Reason == adaptation.ReasonReplaced || ch.Reason == adaptation.ReasonRestarted):
		return nil
	case len(ch.Output) > outputShown:
		return ch.Output[len(ch.Output)-outputShown:]
	default:
		return ch.Output
	}
}

// lifecycleStarts marks the end of start-up: later joins are worth a line.
func (c *pluginChanges) lifecycleStarts() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running = true
}

func (c *pluginChanges) reports() []PluginChangeReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]PluginChangeReport(nil), c.list...)
}

// troubles counts the changes that make a run fail: plugins that failed to
// join, and plugins dropped before the end. A plugin replaced by a new
// instance of itself is no trouble, nor a file skipped as no plugin: both
// are listed all the same.
func troubles(changes []PluginChangeReport) int {
	n := 0
	for _, c := range changes {
		switch {
		case c.Change == string(adaptation.PluginJoined), c.Change == string(adaptation.PluginSkipped), replaced(c):
		default:
			n++
		}
	}
	return n
}

func replaced(c PluginChangeReport) bool {
	return c.Change == string(adaptation.PluginLeft) && c.Reason == adaptation.ReasonReplaced
}

// dropped lists the plugins dropped during the run, once each.
func dropped(changes []PluginChangeReport) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range changes {
		if c.Change == string(adaptation.PluginLeft) && !replaced(c) && !seen[c.Plugin] {
			seen[c.Plugin] = true
			out = append(out, c.Plugin)
		}
	}
	return out
}

func (r *Report) textPluginChanges(w io.Writer) {
	fmt.Fprintln(w, "PLUGIN CHANGES (plugins that did not join, or joined or left during the run)")
	if len(r.PluginChanges) == 0 {
		fmt.Fprint(w, "(none)\n\n")
		return
	}
	fmt.Fprintln(w, "PLUGIN\tKIND\tREVISION\tPID\tCHANGE\tDURING\tREASON")
	for _, c := range r.PluginChanges {
		pid := "-"
		if c.PID != 0 {
			pid = fmt.Sprint(c.PID)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s%s\n", c.Plugin, c.Kind, orDash(c.Revision), pid, c.Change, c.Phase, c.Reason, limitHint(c.Phase, c.Reason))
	}
	fmt.Fprintln(w)
	r.textPluginOutput(w)
}

// textPluginOutput shows, under the table, what the listed plugins wrote
// to stdout and stderr before they failed or left: a crash's panic and
// stack, the plugin's own log lines.
func (r *Report) textPluginOutput(w io.Writer) {
	for _, c := range r.PluginChanges {
		if len(c.Output) == 0 {
			continue
		}
		fmt.Fprintf(w, "OUTPUT of %s (%s%s), its last %d lines:\n", c.Plugin, c.Change, orEmpty(" during ", c.Phase), len(c.Output))
		for _, l := range c.Output {
			fmt.Fprintf(w, "  %s| %s\n", l.Stream, l.Text)
		}
		fmt.Fprintln(w)
	}
}

// orEmpty is prefix+s, or "" when s is empty.
func orEmpty(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// orDash is s, or "-" for an empty table cell.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
