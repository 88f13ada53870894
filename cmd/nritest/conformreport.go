// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// conformanceSchemaVersion is ConformanceReport.SchemaVersion
// (conformance.schema.json).
const conformanceSchemaVersion = 1

// Verdicts of a plugin and of its cases.
const (
	verdictPass    = "pass"
	verdictFail    = "FAIL"
	verdictSkipped = "skipped"
	// verdictNotRun is a case that came after the plugin was dropped.
	verdictNotRun = "not run"
)

// ConformanceReport is the outcome of nritest --conformance.
type ConformanceReport struct {
	SchemaVersion int `json:"schema_version"`
	RunSettings
	// Own is nritest's own plugin of the run, not under test.
	Own string `json:"own_plugin"`
	// Cases is the script, case by case, with every runtime call.
	Cases         []CaseReport         `json:"cases"`
	Results       []PluginConformance  `json:"plugins"`
	PluginChanges []PluginChangeReport `json:"plugin_changes,omitempty"`
	Deprecations  []DeprecationReport  `json:"deprecations"`
	Stopped       string               `json:"stopped,omitempty"`
	// SkippedFiles are the plugin path's files nrikit did not start.
	SkippedFiles []string `json:"skipped_files,omitempty"`
	Passed       int      `json:"passed"`
	Failed       int      `json:"failed"`
	OK           bool     `json:"ok"`
}

// CaseReport is one case of the script and its runtime calls.
type CaseReport struct {
	Case   string        `json:"case"`
	Checks string        `json:"checks"`
	Steps  []EventReport `json:"steps"`
}

// PluginConformance is one plugin's result.
type PluginConformance struct {
	Plugin    string   `json:"plugin"`
	Kind      string   `json:"kind"`
	Revision  string   `json:"revision,omitempty"`
	Events    []string `json:"events"`
	AllEvents bool     `json:"all_events"`
	// Instances is how many times it connected (2 after a restart).
	Instances int        `json:"instances"`
	Received  []Received `json:"received"`
	Replies   Replies    `json:"replies"`
	// Problems are what failed it outside the cases: failing to join,
	// being dropped.
	Problems []string     `json:"problems,omitempty"`
	Cases    []CaseResult `json:"cases"`
	Result   string       `json:"result"`
}

// Received counts how one event reached the plugin.
type Received struct {
	Event       string `json:"event"`
	Dedicated   int    `json:"dedicated"`
	StateChange int    `json:"state_change"`
	// Unimplemented counts the dedicated calls it answered Unimplemented
	// (StateChange followed).
	Unimplemented int `json:"unimplemented,omitempty"`
}

// Replies sums up the plugin's answers to the events.
type Replies struct {
	Calls       int           `json:"calls"`
	Failed      int           `json:"failed"`
	Adjustments int           `json:"adjustments"`
	Updates     int           `json:"updates"`
	Evictions   int           `json:"evictions"`
	Failures    []CallFailure `json:"failures,omitempty"`
}

// CallFailure is one call of the plugin that did not end ok.
type CallFailure struct {
	Step    int                `json:"step"`
	Event   string             `json:"event"`
	Target  string             `json:"target"`
	Outcome adaptation.Outcome `json:"outcome"`
	Error   string             `json:"error"`
}

// CaseResult is one case's verdict for one plugin.
type CaseResult struct {
	Case   string `json:"case"`
	Result string `json:"result"`
	// DroppedAtStep is the step during which the plugin was dropped, for a
	// case that was not run for it because it came after.
	DroppedAtStep int      `json:"dropped_at_step,omitempty"`
	Notes         []string `json:"notes,omitempty"`
}

// caseReports groups the steps by case.
func caseReports(run *contractRun) []CaseReport {
	out := make([]CaseReport, 0, len(caseTitles))
	for _, c := range caseTitles {
		cr := CaseReport{Case: c.name, Checks: c.title, Steps: []EventReport{}}
		for i, s := range run.steps {
			if s.kase == c.name {
				cr.Steps = append(cr.Steps, run.events[i])
			}
		}
		out = append(out, cr)
	}
	return out
}

// pluginResults checks every plugin under test.
func pluginResults(run *contractRun, under map[string]adaptation.PluginInfo, tap *wiretap, restarts map[string]string, changes []PluginChangeReport, deps []DeprecationReport) []PluginConformance {
	ids := make([]string, 0, len(under))
	for id := range under {
		ids = append(ids, id)
	}
	slices.Sort(ids) // idx-name with two-digit indices: dispatch order
	out := make([]PluginConformance, 0, len(ids))
	for _, id := range ids {
		out = append(out, pluginResult(run, under[id], tap.instances(id), restarts, changes))
	}
	return out
}

func pluginResult(run *contractRun, info adaptation.PluginInfo, insts []*instance, restarts map[string]string, changes []PluginChangeReport) PluginConformance {
	id := info.Plugin
	insts = slices.DeleteFunc(insts, func(in *instance) bool { return !joined(in) })
	pc := PluginConformance{
		Plugin: id, Kind: info.Kind, Revision: info.Revision, Events: info.Events,
		AllEvents: len(info.Events) == len(api.AllEvents.Events()), Instances: len(insts),
		Received: received(insts), Cases: []CaseResult{},
	}
	f := findings{}
	dropped := false
	for _, c := range changes {
		if c.Plugin != id {
			continue
		}
		switch {
		case c.Change == string(adaptation.PluginFailed):
			pc.Problems = append(pc.Problems, fmt.Sprintf("failed to join (%s): %s", c.Phase, c.Reason))
		case c.Change == string(adaptation.PluginLeft) && c.Reason != adaptation.ReasonRestarted && !replaced(c):
			dropped = true
			pc.Problems = append(pc.Problems, fmt.Sprintf("dropped (%s)", c.Reason))
		}
	}
	for i, in := range insts {
		until := len(run.steps)
		if i+1 < len(insts) && len(insts[i+1].calls) > 0 {
			until = insts[i+1].calls[0].step
		}
		run.checkInstance(id, in, until, i == len(insts)-1 && !dropped, f)
	}
	pc.Replies = replies(run, id, f)
	notes := map[string][]string{}
	if len(insts) > 0 {
		notes[caseJoined] = []string{"snapshot: " + listOrNone(snapshotOf(insts[0]))}
	}
	restart, reached := restarts[id]
	switch {
	case !reached:
		notes[caseRestart] = []string{"the script did not get there"}
	case restart == "":
		notes[caseRestart] = []string{"restarted; new snapshot: " + listOrNone(snapshotOf(insts[len(insts)-1]))}
	case strings.HasPrefix(restart, "failed: "):
		f.add(caseRestart, "%s", restart)
	default:
		notes[caseRestart] = []string{strings.TrimPrefix(restart, "skipped: ")}
	}
	for _, kase := range []string{caseOtherFails, caseStopNoRemove, caseRemoveNoStop} {
		if seq := caseSequence(run, insts, kase); len(seq) > 0 {
			notes[kase] = append(notes[kase], "got: "+strings.Join(seq, ", "))
		}
	}
	pc.Result = verdictPass
	if len(pc.Problems) > 0 {
		pc.Result = verdictFail
	}
	dropStep := -1 // index of the step it was dropped during
	if dropped {
		dropStep = run.droppedDuring(id)
	}
	for _, c := range caseTitles {
		cr := CaseResult{Case: c.name, Result: verdictPass, Notes: append(f[c.name], notes[c.name]...)}
		switch {
		case dropStep >= 0 && run.caseStart(c.name) > dropStep:
			// The plugin was gone: whatever the checks found, it was not tested.
			cr.Result, cr.DroppedAtStep, cr.Notes = verdictNotRun, dropStep+1, nil
		case len(insts) == 0:
			cr.Result, cr.Notes = verdictSkipped, []string{"it never joined"}
		case len(f[c.name]) > 0:
			cr.Result, pc.Result = verdictFail, verdictFail
		case c.name == caseRestart && (!reached || restart != ""):
			cr.Result = verdictSkipped
		}
		pc.Cases = append(pc.Cases, cr)
	}
	return pc
}

// droppedDuring is the index of the last step the plugin was active
// before: the one during which a dropped plugin left. -1 if it was never
// active during the script.
func (r *contractRun) droppedDuring(id string) int {
	for i := len(r.active) - 1; i >= 0; i-- {
		if r.active[i][id] {
			return i
		}
	}
	return -1
}

// caseStart is the index of a case's first step; -1 for a case without
// steps of its own (the join, before the script).
func (r *contractRun) caseStart(kase string) int {
	return slices.IndexFunc(r.steps, func(s cstep) bool { return s.kase == kase })
}

// joined tells whether an instance got through its handshake: configured
// and synchronized. One that did not is reported as a failed join.
func joined(in *instance) bool {
	synced := false
	for i, c := range in.calls {
		switch {
		case i == 0 && (c.method != "Configure" || c.err != nil):
			return false
		case c.method == "Synchronize" && c.err != nil:
			return false
		case c.method == "Synchronize":
			synced = true
		}
	}
	return synced
}

// caseSequence lists the events the plugin got during a case's steps, in
// order, as "StopContainer ctr-1a", marked [StateChange] when they came
// that way.
func caseSequence(run *contractRun, insts []*instance, kase string) []string {
	var seq []string
	for _, in := range insts {
		for _, c := range in.calls {
			if c.step < 0 || run.caseOf(c.step) != kase || c.event == api.Event_UNKNOWN || c.unimplemented ||
				c.event == api.Event_VALIDATE_CONTAINER_ADJUSTMENT {
				continue
			}
			id := c.podID
			if c.event.IsContainerEvent() {
				id = c.ctrID
			}
			ev := c.event.Name()
			if c.via == ViaStateChange {
				ev += "[StateChange]"
			}
			seq = append(seq, ev+" "+id)
		}
	}
	return seq
}

// received counts the events that reached the plugin, by RPC.
func received(insts []*instance) []Received {
	byEvent := map[api.Event]*Received{}
	for _, in := range insts {
		for _, c := range in.calls {
			if c.event == api.Event_UNKNOWN {
				continue
			}
			r := byEvent[c.event]
			if r == nil {
				r = &Received{Event: c.event.Name()}
				byEvent[c.event] = r
			}
			switch {
			case c.unimplemented:
				r.Unimplemented++
			case c.via == ViaStateChange:
				r.StateChange++
			default:
				r.Dedicated++
			}
		}
	}
	out := []Received{}
	for ev := api.Event_UNKNOWN; ev <= api.Event_LAST; ev++ {
		if r := byEvent[ev]; r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// replies sums up the plugin's answers, from the metrics of every step, and
// files each failed call under its case.
func replies(run *contractRun, id string, f findings) Replies {
	var r Replies
	for i, e := range run.events {
		for _, c := range e.Calls {
			if c.Plugin != id {
				continue
			}
			r.Calls++
			r.Adjustments += c.Adjusted
			r.Updates += c.Updates
			r.Evictions += c.Evictions
			if c.Outcome == adaptation.OutcomeOK {
				continue
			}
			ev := orStep(c.Event, e.Event)
			r.Failed++
			r.Failures = append(r.Failures, CallFailure{Step: e.Seq, Event: ev, Target: e.TargetID, Outcome: c.Outcome, Error: c.Error})
			f.add(run.caseOf(i), "%s of %s (step %d): %s: %s", ev, e.TargetID, e.Seq, c.Outcome, callReason(c))
		}
	}
	return r
}

func orStep(callEvent, stepEvent string) string {
	if callEvent != "" {
		return callEvent
	}
	return stepEvent
}

func orNoReason(s string) string {
	if s == "" {
		return "(no reason given)"
	}
	return s
}

// snapshotOf lists what an instance's Synchronize messages listed.
func snapshotOf(in *instance) []string {
	var ids []string
	for _, c := range in.calls {
		if c.method == "Synchronize" {
			ids = append(append(ids, c.pods...), c.ctrs...)
		}
	}
	return ids
}

func listOrNone(ids []string) string {
	if len(ids) == 0 {
		return "(empty)"
	}
	return strings.Join(ids, ", ")
}

// tally counts the verdicts and sets OK.
func (r *ConformanceReport) tally() {
	r.Passed, r.Failed = 0, 0
	for _, p := range r.Results {
		if p.Result == verdictPass {
			r.Passed++
		} else {
			r.Failed++
		}
	}
	r.OK = r.Stopped == "" && r.Failed == 0 && len(r.Results) > 0
}

func (r *ConformanceReport) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func (r *ConformanceReport) stopReason() string { return r.Stopped }
func (r *ConformanceReport) passed() bool       { return r.OK }
