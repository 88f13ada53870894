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
}

// pluginChanges keeps what nrikit reports through WithPluginChanges, less
// the ordinary: the joins before the lifecycle starts and the final Stop.
type pluginChanges struct {
	mu      sync.Mutex
	running bool // the lifecycle has started
	list    []PluginChangeReport
	// progress, while set, gets a line per change (progress.go).
	progress        io.Writer
	announced       func(kind string) bool
	refusedExternal []string
	joinsAnnounced  map[string]bool
	changed         chan struct{} // closed at each change announced
}

func newPluginChanges() *pluginChanges {
	return &pluginChanges{changed: make(chan struct{}), joinsAnnounced: map[string]bool{}}
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
	c.list = append(c.list, PluginChangeReport{
		Plugin: ch.Plugin, Kind: ch.Kind, Revision: ch.Revision, Change: string(ch.Change), Phase: ch.Phase, Reason: ch.Reason, PID: ch.PID,
	})
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
}

// orDash is s, or "-" for an empty table cell.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
