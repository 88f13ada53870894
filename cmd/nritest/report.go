package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nrikit/nrikit/adaptation"
)

// Report is the outcome of one run; the text and JSON forms show the same.
type Report struct {
	Runtime        string              `json:"runtime"`
	NRIVersion     string              `json:"nri_version"`
	Plugins        string              `json:"plugin_source"` // where the plugins came from
	Socket         string              `json:"socket,omitempty"`
	RequestTimeout string              `json:"request_timeout"`
	Workload       string              `json:"workload"`
	Events         []EventReport       `json:"events"`
	Outside        []Call              `json:"calls_outside_events,omitempty"`
	Active         []PluginReport      `json:"plugins"`
	Deprecations   []DeprecationReport `json:"deprecations"`
	Failures       int                 `json:"failures"`
	OK             bool                `json:"ok"`
}

// EventReport is one lifecycle call of the runtime.
type EventReport struct {
	Seq      int    `json:"seq"`
	Event    string `json:"event"`
	Target   string `json:"target"` // "pod" or a container name
	TargetID string `json:"target_id"`
	Result   string `json:"result"` // ok, FAILED, skipped
	Calls    []Call `json:"calls"`  // in call order
	// Changes is what the merged response asked the runtime to change.
	Changes []string `json:"changes,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// PluginReport is one active plugin at the end of the lifecycle.
type PluginReport struct {
	Plugin      string `json:"plugin"`
	Kind        string `json:"kind"`
	PID         int    `json:"pid,omitempty"`
	Events      string `json:"events"`
	StateChange bool   `json:"state_change"`
}

// DeprecationReport is one plugin's deprecated behaviour.
type DeprecationReport struct {
	Plugin      string    `json:"plugin"`
	Deprecation string    `json:"deprecation"`
	Events      []string  `json:"events"`
	Since       time.Time `json:"since"`
}

func pluginReports(infos []adaptation.PluginInfo) []PluginReport {
	out := make([]PluginReport, 0, len(infos))
	for _, p := range infos {
		out = append(out, PluginReport{Plugin: p.Plugin, Kind: p.Kind, PID: p.PID, Events: p.Events, StateChange: p.StateChange})
	}
	return out
}

func deprecationReports(deps []adaptation.PluginDeprecation) []DeprecationReport {
	out := make([]DeprecationReport, 0, len(deps))
	for _, d := range deps {
		r := DeprecationReport{Plugin: d.Plugin, Deprecation: d.Deprecation.String(), Since: d.Since}
		for _, e := range d.Events {
			r.Events = append(r.Events, e.Name())
		}
		out = append(out, r)
	}
	return out
}

// tally counts failed events and failed plugin calls, and sets OK.
func (r *Report) tally() {
	r.Failures = 0
	for _, e := range r.Events {
		if e.Result == resultFailed {
			r.Failures++
		}
		r.Failures += failedCalls(e.Calls)
	}
	r.Failures += failedCalls(r.Outside)
	r.OK = r.Failures == 0
}

func failedCalls(calls []Call) int {
	n := 0
	for _, c := range calls {
		if c.Outcome != adaptation.OutcomeOK {
			n++
		}
	}
	return n
}

func (r *Report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// writeText writes the human-readable report.
func (r *Report) writeText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	r.textHeader(tw)
	r.textEvents(tw)
	r.textPlugins(tw)
	r.textDeprecations(tw)
	r.textSummary(tw)
	return tw.Flush()
}

func (r *Report) textHeader(w io.Writer) {
	fmt.Fprintf(w, "nritest: simulated runtime %s (NRI %s), request timeout %s\n", r.Runtime, r.NRIVersion, r.RequestTimeout)
	fmt.Fprintf(w, "  plugins:   %s\n", r.Plugins)
	socket := "none (external plugins disabled; see --socket)"
	if r.Socket != "" {
		socket = r.Socket
	}
	fmt.Fprintf(w, "  socket:    %s\n", socket)
	fmt.Fprintf(w, "  workload:  %s\n\n", r.Workload)
}

// textEvents is one row per event; the plugin calls are cells in call
// order. Calls of another event made on the way (the validation of a
// CreateContainer, say) get a row of their own below.
func (r *Report) textEvents(w io.Writer) {
	fmt.Fprintln(w, "EVENTS (plugin calls in call order: plugin outcome latency)")
	fmt.Fprintln(w, "#\tEVENT\tTARGET\tRESULT\tPLUGIN CALLS")
	for _, e := range r.Events {
		groups := byEvent(e.Calls)
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\n", e.Seq, e.Event, e.Target, e.Result, callCells(groups[0].calls))
		for _, g := range groups[1:] {
			fmt.Fprintf(w, "\t+ %s\t\t\t%s\n", g.event, callCells(g.calls))
		}
		if len(e.Changes) > 0 {
			fmt.Fprintf(w, "\t\t\t\tchanged by %s:\n", changers(e.Calls))
			for _, c := range e.Changes {
				fmt.Fprintf(w, "\t\t\t\t  %s\n", c)
			}
		}
		if e.Error != "" {
			fmt.Fprintf(w, "\t\t\t\terror: %s\n", e.Error)
		}
	}
	if len(r.Outside) > 0 {
		for _, g := range byEvent(r.Outside)[1:] {
			fmt.Fprintf(w, "-\t%s\t(between steps)\t\t%s\n", g.event, callCells(g.calls))
		}
	}
	fmt.Fprintln(w)
}

type callGroup struct {
	event string // "" for the step's own event
	calls []Call
}

// byEvent groups calls by event, in order of first appearance; the step's
// own event always comes first, even when empty.
func byEvent(calls []Call) []callGroup {
	groups := []callGroup{{}}
	for _, c := range calls {
		i := slices.IndexFunc(groups, func(g callGroup) bool { return g.event == c.Event })
		if i < 0 {
			i = len(groups)
			groups = append(groups, callGroup{event: c.Event})
		}
		groups[i].calls = append(groups[i].calls, c)
	}
	return groups
}

// callCells is one tab-separated cell per call.
func callCells(calls []Call) string {
	if len(calls) == 0 {
		return "(no plugin)"
	}
	cells := make([]string, len(calls))
	for i, c := range calls {
		cells[i] = fmt.Sprintf("%s %s %.2fms", c.Plugin, c.Outcome, c.LatencyMS)
	}
	return strings.Join(cells, "\t")
}

// changers names the plugins that asked for changes, or "plugins".
func changers(calls []Call) string {
	var ids []string
	for _, c := range calls {
		if c.changed() {
			ids = append(ids, c.Plugin)
		}
	}
	if len(ids) == 0 {
		return "plugins"
	}
	return strings.Join(ids, ", ")
}

func (r *Report) textPlugins(w io.Writer) {
	fmt.Fprintln(w, "PLUGINS (dispatch order)")
	fmt.Fprintln(w, "PLUGIN\tKIND\tPID\tEVENTS\tSTATECHANGE")
	for _, p := range r.Active {
		sc := "no"
		if p.StateChange {
			sc = "yes (deprecated)"
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\n", p.Plugin, p.Kind, p.PID, p.Events, sc)
	}
	if len(r.Active) == 0 {
		fmt.Fprintln(w, "(none)")
	}
	fmt.Fprintln(w)
}

func (r *Report) textDeprecations(w io.Writer) {
	fmt.Fprintln(w, "DEPRECATIONS")
	if len(r.Deprecations) == 0 {
		fmt.Fprint(w, "(none)\n\n")
		return
	}
	fmt.Fprintln(w, "PLUGIN\tDEPRECATION\tSINCE\tEVENTS")
	for _, d := range r.Deprecations {
		lines := chunk(d.Events, 3)
		since := d.Since.Format("15:04:05.000")
		fmt.Fprintf(w, "%s\t%s\t%s\t%s (%d)\n", d.Plugin, d.Deprecation, since, lines[0], len(d.Events))
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "\t\t\t%s\n", l)
		}
	}
	fmt.Fprintln(w)
}

// chunk joins names n to a line; it always returns at least one line.
func chunk(names []string, n int) []string {
	lines := []string{""}
	for i := 0; i < len(names); i += n {
		end := min(i+n, len(names))
		if i == 0 {
			lines[0] = strings.Join(names[i:end], ", ")
			continue
		}
		lines = append(lines, strings.Join(names[i:end], ", "))
	}
	return lines
}

func (r *Report) textSummary(w io.Writer) {
	calls := len(r.Outside)
	for _, e := range r.Events {
		calls += len(e.Calls)
	}
	verdict := "ok"
	if !r.OK {
		verdict = "FAILED"
	}
	fmt.Fprintf(w, "RESULT: %s: %d events, %d plugin calls, %d failures, %d plugins with deprecations\n",
		verdict, len(r.Events), calls, r.Failures, len(r.Deprecations))
}
