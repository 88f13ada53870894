// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// schemaVersion is Report.SchemaVersion: 2 made lists arrays
// (plugins[].events), change kinds enumerated (changes[].what) and added
// calls[].error and stopped.
const schemaVersion = 2

// sinceLayout is RFC 3339 to the millisecond, for deprecations.
const sinceLayout = "2006-01-02T15:04:05.000Z07:00"

// Report is the outcome of one run; the text and JSON forms show the same.
type Report struct {
	// SchemaVersion is the version of the report's JSON form
	// (report.schema.json): it changes when a field changes meaning or
	// goes away, not when one is added.
	SchemaVersion int `json:"schema_version"`
	RunSettings
	Workload      string               `json:"workload"`
	Metadata      []string             `json:"workload_metadata,omitempty"` // "pod labels: app=demo", ...
	Linger        string               `json:"linger,omitempty"`            // --linger, "(interrupted)" when cut short
	Readiness     *ReadinessReport     `json:"readiness,omitempty"`         // with --required-plugins
	Events        []EventReport        `json:"events"`
	Outside       []Call               `json:"calls_outside_events,omitempty"`
	SyncUpdates   []SyncUpdate         `json:"sync_updates,omitempty"`
	Unsolicited   []UnsolicitedUpdate  `json:"unsolicited_updates,omitempty"`
	Active        []PluginReport       `json:"plugins"`
	PluginChanges []PluginChangeReport `json:"plugin_changes,omitempty"`
	Dropped       []string             `json:"dropped,omitempty"` // dropped before the end
	Deprecations  []DeprecationReport  `json:"deprecations"`
	// Status is nrikit's Status at the end of the lifecycle, before Stop:
	// each plugin's calls per event by outcome, latency histograms, last
	// error (docs/status.md); absent when the runtime did not start.
	Status *adaptation.Status `json:"status,omitempty"`
	// Stopped says why the run ended before the lifecycle; the report then
	// has what was observed until then.
	Stopped string `json:"stopped,omitempty"`
	// SkippedFiles are the plugin path's files nrikit did not start, as
	// "name: reason"; listed, not failures.
	SkippedFiles []string `json:"skipped_files,omitempty"`
	FailedEvents int      `json:"failed_events"`
	FailedCalls  int      `json:"failed_calls"` // plugin calls not ok
	OK           bool     `json:"ok"`
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
	Changes []Change `json:"changes,omitempty"`
	Error   string   `json:"error,omitempty"`
	// Skipped says why the runtime did not issue the event.
	Skipped string `json:"skipped,omitempty"`
	// Note says what a step that is no runtime event did (--conformance's
	// restart).
	Note string `json:"note,omitempty"`
}

// PluginReport is one active plugin at the end of the lifecycle.
type PluginReport struct {
	Plugin      string   `json:"plugin"`
	Kind        string   `json:"kind"`
	Revision    string   `json:"revision,omitempty"` // protocol revision: v1alpha1, v1beta1; none for builtins
	PID         int      `json:"pid,omitempty"`
	Events      []string `json:"events"` // "CreateContainer", "StopContainer": every event it takes
	AllEvents   bool     `json:"all_events"`
	StateChange bool     `json:"state_change"`
	// About says what a sample plugin does.
	About string `json:"about,omitempty"`
	// RequestTimeout and FailurePolicy are its effective settings, each
	// with where it came from: operator (plugin_settings), plugin or
	// default.
	RequestTimeout     string `json:"request_timeout,omitempty"`
	RequestTimeoutFrom string `json:"request_timeout_from,omitempty"`
	FailurePolicy      string `json:"failure_policy,omitempty"` // "fail_request,keep_connected", or "none"
	FailurePolicyFrom  string `json:"failure_policy_from,omitempty"`
}

// DeprecationReport is one plugin's deprecated behaviour.
type DeprecationReport struct {
	Plugin      string    `json:"plugin"`
	Deprecation string    `json:"deprecation"`
	Events      []string  `json:"events"`
	Since       time.Time `json:"since"`
}

// pluginReports lists the plugins; about describes the known ones.
func pluginReports(infos []adaptation.PluginInfo, about map[string]string) []PluginReport {
	out := make([]PluginReport, 0, len(infos))
	for _, p := range infos {
		out = append(out, PluginReport{
			Plugin: p.Plugin, Kind: p.Kind, Revision: p.Revision, PID: p.PID, Events: p.Events, AllEvents: len(p.Events) == len(api.AllEvents.Events()), StateChange: p.StateChange,
			About:          about[p.Plugin],
			RequestTimeout: time.Duration(p.RequestTimeout).String(), RequestTimeoutFrom: p.RequestTimeoutFrom,
			FailurePolicy: policyText(p.FailurePolicy), FailurePolicyFrom: p.FailurePolicyFrom,
		})
	}
	return out
}

// policyText is a failure policy as the config writes its keys:
// "fail_request,keep_connected", or "none" when both are false.
func policyText(p adaptation.FailurePolicy) string {
	var keys []string
	if p.FailRequest {
		keys = append(keys, "fail_request")
	}
	if p.KeepConnected {
		keys = append(keys, "keep_connected")
	}
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ",")
}

// settingText is an effective setting and where it came from: "2s
// (default)".
func settingText(value, from string) string {
	if from == "" {
		return value
	}
	return value + " (" + from + ")"
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

// tally counts failed events and plugin calls, and sets OK.
func (r *Report) tally() {
	r.FailedEvents, r.FailedCalls = 0, failedCalls(r.Outside)
	for _, e := range r.Events {
		if e.Result == resultFailed {
			r.FailedEvents++
		}
		r.FailedCalls += failedCalls(e.Calls)
	}
	r.Dropped = dropped(r.PluginChanges)
	r.OK = r.Stopped == "" && r.FailedEvents == 0 && r.FailedCalls == 0 && troubles(r.PluginChanges) == 0
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
	return writeTable(w, func(tw io.Writer) {
		r.textHeader(tw)
		r.textReadiness(tw)
		r.textEvents(tw)
		r.textSyncUpdates(tw)
		r.textUnsolicited(tw)
		r.textPlugins(tw)
		r.textPluginChanges(tw)
		r.textDeprecations(tw)
		r.textStatus(tw)
		r.textSummary(tw)
	})
}

// writeTable writes to w what write prints, its tab-separated cells
// aligned in columns, without the padding tabwriter leaves after the last
// cell of a row whose later cells are empty.
func writeTable(w io.Writer, write func(tw io.Writer)) error {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	write(tw)
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(trailingSpace.ReplaceAll(buf.Bytes(), nil))
	return err
}

var trailingSpace = regexp.MustCompile(`(?m) +$`)

func (r *Report) textHeader(w io.Writer) {
	r.RunSettings.writeText(w, "nritest")
	fmt.Fprintf(w, "  workload:  %s\n", r.Workload)
	for _, m := range r.Metadata {
		fmt.Fprintf(w, "             %s\n", m)
	}
	if r.Linger != "" {
		fmt.Fprintf(w, "  linger:    %s while the containers run, before the teardown\n", r.Linger)
	}
	fmt.Fprintln(w)
}

// textEvents is one row per event; the plugin calls are cells in call
// order. Calls of another event made on the way (the validation of a
// CreateContainer, say) get a row of their own below.
func (r *Report) textEvents(w io.Writer) {
	fmt.Fprintln(w, "EVENTS (each plugin call as: plugin outcome latency, in call order; validators are called at once)")
	if r.Stopped != "" && len(r.Events) == 0 {
		fmt.Fprint(w, "(none: the run stopped before the lifecycle)\n\n")
		return
	}
	fmt.Fprintln(w, "#\tEVENT\tTARGET\tRESULT\tPLUGIN CALLS")
	width := r.callWidth()
	for _, e := range r.Events {
		groups := byEvent(e.Calls)
		calls := callCells(groups[0].calls, width)
		if e.Skipped != "" {
			calls = "(not issued: " + e.Skipped + ")"
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\n", e.Seq, e.Event, e.Target, e.Result, calls)
		errAt := errorGroup(groups, e.Error)
		for i, g := range groups {
			if i == 0 {
				for _, cg := range changeGroups(e.Changes, e.Calls) {
					fmt.Fprintf(w, "\t\t\t\tchanged by %s:\n", cg.by)
					for _, l := range cg.lines {
						fmt.Fprintf(w, "\t\t\t\t  %s\n", l)
					}
				}
			} else {
				fmt.Fprintf(w, "\t+ %s\t\t\t%s\n", g.event, callCells(g.calls, width))
			}
			callReasons(w, "\t\t\t\t", g.calls, e.Error)
			if i == errAt {
				fmt.Fprintf(w, "\t\t\t\t%s\n", eventError(e.Error, e.Calls))
			}
		}
		if errAt < 0 && e.Error != "" {
			fmt.Fprintf(w, "\t\t\t\t%s\n", eventError(e.Error, e.Calls))
		}
	}
	if len(r.Outside) > 0 {
		for _, g := range byEvent(r.Outside)[1:] {
			fmt.Fprintf(w, "-\t%s\t(between steps)\t\t%s\n", g.event, callCells(g.calls, width))
			callReasons(w, "\t\t\t\t", g.calls, "")
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

// callCells lists calls, each padded to width so that the calls of
// successive rows line up (tabwriter columns would break at every
// continuation line).
func callCells(calls []Call, width int) string {
	if len(calls) == 0 {
		return "(no plugin)"
	}
	cells := make([]string, len(calls))
	for i, c := range calls {
		cells[i] = fmt.Sprintf("%-*s", width, callText(c))
	}
	return strings.TrimRight(strings.Join(cells, "  "), " ")
}

func callText(c Call) string {
	return fmt.Sprintf("%s %s %.2fms", c.Plugin, c.Outcome, c.LatencyMS)
}

// callWidth is the width of the widest call of the report.
func (r *Report) callWidth() int {
	w := 0
	for _, e := range r.Events {
		for _, c := range e.Calls {
			w = max(w, len(callText(c)))
		}
	}
	for _, c := range r.Outside {
		w = max(w, len(callText(c)))
	}
	return w
}

type changeGroup struct {
	by    string
	lines []string
}

// changeGroups groups changes by the plugin that asked for them, in plugin
// order; those of no known plugin come last, as changed by the plugins that
// asked for changes.
func changeGroups(changes []Change, calls []Call) []changeGroup {
	var groups []changeGroup
	var rest []string
	for _, c := range changes {
		if c.Plugin == "" {
			rest = append(rest, c.Text)
			continue
		}
		i := slices.IndexFunc(groups, func(g changeGroup) bool { return g.by == c.Plugin })
		if i < 0 {
			i = len(groups)
			groups = append(groups, changeGroup{by: c.Plugin})
		}
		groups[i].lines = append(groups[i].lines, c.Text)
	}
	slices.SortFunc(groups, func(a, b changeGroup) int { return strings.Compare(a.by, b.by) })
	if len(rest) > 0 {
		by := changers(calls)
		if i := slices.IndexFunc(groups, func(g changeGroup) bool { return g.by == by }); i >= 0 {
			groups[i].lines = append(groups[i].lines, rest...) // all by the one plugin anyway
		} else {
			groups = append(groups, changeGroup{by: by, lines: rest})
		}
	}
	return groups
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

// textUnsolicited lists the updates plugins sent on their own, if any.
func (r *Report) textUnsolicited(w io.Writer) {
	if len(r.Unsolicited) == 0 {
		return
	}
	fmt.Fprintln(w, "UNSOLICITED UPDATES (UpdateContainers from plugins, sender unknown to the runtime; nritest applies nothing)")
	updateRows(w, r.Unsolicited)
	fmt.Fprintln(w)
}

func (r *Report) textPlugins(w io.Writer) {
	fmt.Fprintln(w, "PLUGINS (dispatch order)")
	if len(r.Dropped) > 0 {
		fmt.Fprintf(w, "dropped during the run: %s\n", strings.Join(r.Dropped, ", "))
	}
	if len(r.Active) == 0 {
		fmt.Fprint(w, "(none active)\n\n")
		return
	}
	about := slices.ContainsFunc(r.Active, func(p PluginReport) bool { return p.About != "" })
	fmt.Fprint(w, "PLUGIN\tKIND\tREVISION\tPID\tTIMEOUT\tFAILURE POLICY\tEVENTS\tSTATECHANGE")
	if about {
		fmt.Fprint(w, "\tABOUT")
	}
	fmt.Fprintln(w)
	for _, p := range r.Active {
		sc := "no"
		if p.StateChange {
			sc = "yes (deprecated)"
		}
		pid := "-"
		if p.PID != 0 {
			pid = strconv.Itoa(p.PID)
		}
		events := chunk(p.Events, 3)
		if p.AllEvents {
			events = []string{"all"}
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", p.Plugin, p.Kind, orDash(p.Revision), pid,
			settingText(p.RequestTimeout, p.RequestTimeoutFrom), settingText(p.FailurePolicy, p.FailurePolicyFrom), events[0], sc)
		if about {
			fmt.Fprintf(w, "\t%s", p.About)
		}
		fmt.Fprintln(w)
		for _, l := range events[1:] {
			// As many cells as a row, to keep the columns aligned.
			fmt.Fprintf(w, "\t\t\t\t\t\t%s\t", l)
			if about {
				fmt.Fprint(w, "\t")
			}
			fmt.Fprintln(w)
		}
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
		what := fmt.Sprintf("%s (%d events)", d.Deprecation, len(d.Events))
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", d.Plugin, what, d.Since.Format(sinceLayout), lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "\t\t\t%s\n", l)
		}
	}
	fmt.Fprintln(w)
}

// chunk joins names, n to a line, with a comma after all but the last; it
// returns at least one line.
func chunk(names []string, n int) []string {
	var lines []string
	for i := 0; i < len(names); i += n {
		line := strings.Join(names[i:min(i+n, len(names))], ", ")
		if i+n < len(names) {
			line += ","
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return []string{""}
	}
	return lines
}

func (r *Report) textSummary(w io.Writer) {
	calls, skipped := len(r.Outside), 0
	for _, e := range r.Events {
		calls += len(e.Calls)
		if e.Skipped != "" {
			skipped++
		}
	}
	verdict := "ok"
	if !r.OK {
		verdict = "FAILED"
	}
	fmt.Fprintf(w, "RESULT: %s: %d events (%d failed, %d skipped), %d plugin calls (%d failed); plugins that failed to join or were dropped: %d; deprecations: %s",
		verdict, len(r.Events), r.FailedEvents, skipped, calls, r.FailedCalls, troubles(r.PluginChanges), deprecated(r.Deprecations))
	fmt.Fprint(w, skippedText(r.SkippedFiles))
	if n := len(r.SyncUpdates); n > 0 {
		fmt.Fprintf(w, "; sync updates: %d (%d failed)", n, failedUpdates(r.SyncUpdates))
	}
	if n := len(r.Unsolicited); n > 0 {
		fmt.Fprintf(w, "; unsolicited updates: %d (%d failed)", n, failedUpdates(r.Unsolicited))
	}
	fmt.Fprintln(w)
	if r.Stopped != "" {
		fmt.Fprintf(w, "STOPPED EARLY: %s\n", r.Stopped)
	}
}

// deprecated names the plugins with deprecations, or says "none".
func deprecated(deps []DeprecationReport) string {
	if len(deps) == 0 {
		return "none"
	}
	ids := make([]string, len(deps))
	for i, d := range deps {
		ids[i] = d.Plugin
	}
	return strings.Join(ids, ", ")
}

func (r *Report) stopReason() string { return r.Stopped }
func (r *Report) passed() bool       { return r.OK }
