// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The text form of the conformance report.

// writeText writes the human-readable conformance report.
func (r *ConformanceReport) writeText(w io.Writer) error {
	return writeTable(w, func(tw io.Writer) {
		r.textHeader(tw)
		r.textCases(tw)
		for _, p := range r.Results {
			p.text(tw, r.Deprecations)
		}
		if len(r.Results) == 0 {
			fmt.Fprint(tw, "PLUGINS\n(none under test)\n\n")
		}
		(&Report{PluginChanges: r.PluginChanges}).textPluginChanges(tw)
		r.textSummary(tw)
	})
}

func (r *ConformanceReport) textHeader(w io.Writer) {
	r.RunSettings.writeText(w, "nritest --conformance")
	fmt.Fprintf(w, "  own:       %s\n", r.Own)
	fmt.Fprintln(w, "  before:    pod-0 (early) with container ctr-0a (early-app) running, before any plugin joins")
	fmt.Fprintln(w)
}

// textCases lists the script: each case, what it checks, its calls. The
// rows are padded by hand so that they line up across cases.
func (r *ConformanceReport) textCases(w io.Writer) {
	fmt.Fprintln(w, "SCRIPT (the runtime's calls, case by case; each plugin call as: plugin outcome latency)")
	if r.Stopped != "" && len(r.Cases) == 0 {
		fmt.Fprint(w, "(none: the run stopped before the script)\n\n")
		return
	}
	var rows [][4]string // seq, event, target, result
	for _, c := range r.Cases {
		for _, e := range c.Steps {
			rows = append(rows, [4]string{fmt.Sprintf("#%d", e.Seq), e.Event, stepTarget(e), e.Result})
		}
	}
	var width [4]int
	for _, row := range rows {
		for i, cell := range row {
			width[i] = max(width[i], len(cell))
		}
	}
	// Calls of other events made on the way sit under the event column.
	indent := strings.Repeat(" ", 2+width[0]+2)
	callsAt := strings.Repeat(" ", 2+width[0]+2+width[1]+2+width[2]+2+width[3]+2)
	n := 0
	for i, c := range r.Cases {
		fmt.Fprintf(w, "%d. %s: %s\n", i+1, c.Case, c.Checks)
		for _, e := range c.Steps {
			row := rows[n]
			n++
			calls := callCells(byEvent(e.Calls)[0].calls, 0)
			switch {
			case e.Note != "":
				calls = e.Note
			case e.Skipped != "":
				calls = "(not issued: " + e.Skipped + ")"
			}
			fmt.Fprintf(w, "  %-*s  %-*s  %-*s  %-*s  %s\n", width[0], row[0], width[1], row[1], width[2], row[2], width[3], row[3], calls)
			groups := byEvent(e.Calls)
			errAt := errorGroup(groups, e.Error)
			for i, g := range groups {
				if i > 0 {
					fmt.Fprintf(w, "%s%-*s%s\n", indent, len(callsAt)-len(indent), "+ "+g.event, callCells(g.calls, 0))
				}
				callReasons(w, callsAt, g.calls, e.Error)
				if i == errAt {
					fmt.Fprintf(w, "%s%s\n", callsAt, eventError(e.Error, e.Calls))
				}
			}
			if errAt < 0 && e.Error != "" {
				fmt.Fprintf(w, "%s%s\n", callsAt, eventError(e.Error, e.Calls))
			}
		}
	}
	fmt.Fprintln(w)
}

// stepTarget is a step's object as "ctr-1a (app)", or its pod's ID.
func stepTarget(e EventReport) string {
	if e.TargetID != "" && e.TargetID != e.Target {
		return e.TargetID + " (" + e.Target + ")"
	}
	return e.Target
}

// text writes one plugin's section.
func (p PluginConformance) text(w io.Writer, deps []DeprecationReport) {
	events := strings.Join(p.Events, ", ")
	if p.AllEvents {
		events = "all"
	}
	fmt.Fprintf(w, "PLUGIN %s: %s, %s, connected %s; takes %s\n", p.Plugin, p.Kind, orDash(p.Revision), times(p.Instances), events)
	fmt.Fprintln(w, "  RECEIVED\tDEDICATED\tSTATECHANGE")
	for _, rc := range p.Received {
		sc := strconv.Itoa(rc.StateChange)
		if rc.StateChange > 0 {
			sc += " (deprecated)"
		}
		if rc.Unimplemented > 0 {
			sc += fmt.Sprintf(", after %d Unimplemented", rc.Unimplemented)
		}
		fmt.Fprintf(w, "  %s\t%d\t%s\n", rc.Event, rc.Dedicated, sc)
	}
	for _, d := range deps {
		if d.Plugin == p.Plugin {
			fmt.Fprintf(w, "  deprecation recorded: %s, %d events: %s\n", d.Deprecation, len(d.Events), strings.Join(d.Events, ", "))
		}
	}
	rp := p.Replies
	valid := "all valid"
	if rp.Failed > 0 {
		valid = fmt.Sprintf("%d not ok", rp.Failed)
	}
	fmt.Fprintf(w, "  replies: %d event calls, %s; asked for %d adjustments, %d updates, %d evictions\n",
		rp.Calls, valid, rp.Adjustments, rp.Updates, rp.Evictions)
	for _, pr := range p.Problems {
		fmt.Fprintf(w, "  problem: %s\n", pr)
	}
	for _, c := range p.Cases {
		result := c.Result
		if c.DroppedAtStep > 0 {
			result += fmt.Sprintf(" (dropped at step %d)", c.DroppedAtStep)
		}
		fmt.Fprintf(w, "  %s\t%s\t", c.Case, result)
		for i, n := range noteLines(c.Notes) {
			if i > 0 {
				fmt.Fprint(w, "\n  \t\t")
			}
			fmt.Fprint(w, n)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  RESULT %s: %s\n\n", p.Plugin, p.Result)
}

// noteLines breaks the long notes (event sequences) into lines of a few
// entries.
func noteLines(notes []string) []string {
	var out []string
	for _, n := range notes {
		if !strings.HasPrefix(n, "got: ") {
			out = append(out, n)
			continue
		}
		lines := chunk(strings.Split(strings.TrimPrefix(n, "got: "), ", "), 3)
		out = append(out, "got: "+lines[0])
		for _, l := range lines[1:] {
			out = append(out, "     "+l)
		}
	}
	return out
}

func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

func (r *ConformanceReport) textSummary(w io.Writer) {
	verdict := "PASS"
	if !r.OK {
		verdict = "FAILED"
	}
	var failed, skipped []string
	for _, p := range r.Results {
		if p.Result != verdictPass {
			failed = append(failed, p.Plugin)
		}
		for _, c := range p.Cases {
			if c.Result == verdictSkipped {
				skipped = append(skipped, p.Plugin+" "+c.Case)
			}
		}
	}
	fmt.Fprintf(w, "RESULT: %s: %d plugin(s) passed, %d failed", verdict, r.Passed, r.Failed)
	if len(failed) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(failed, ", "))
	}
	if len(skipped) > 0 {
		fmt.Fprintf(w, "; cases skipped: %s", strings.Join(skipped, ", "))
	}
	if len(r.Results) == 0 {
		fmt.Fprint(w, "; no plugin to check")
	}
	fmt.Fprint(w, skippedText(r.SkippedFiles))
	fmt.Fprintln(w)
	if r.Stopped != "" {
		fmt.Fprintf(w, "STOPPED EARLY: %s\n", r.Stopped)
	}
}
