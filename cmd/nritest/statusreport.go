// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nrikit/nrikit/adaptation"
)

// The report's STATUS section: nrikit's own count of each plugin's calls
// (Adaptation.Status), with their latency histogram and last error.

// textStatus writes, per plugin and event, the calls by outcome, the
// slowest, and the histogram's non-empty buckets ("≤1ms 3" counts calls
// that took at most 1ms and more than the bound before), then the last
// errors.
func (r *Report) textStatus(w io.Writer) {
	if r.Status == nil {
		return
	}
	fmt.Fprintln(w, "STATUS (nrikit's count of each plugin's calls: by outcome, slowest, latency buckets as [≤bound calls])")
	fmt.Fprintln(w, "PLUGIN\tEVENT\tCALLS\tOUTCOMES\tMAX\tLATENCY")
	rows := 0
	for _, p := range r.Status.Plugins {
		for _, c := range p.Calls {
			fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%s\n", p.Plugin, c.Event, c.Total, outcomesText(c.Outcomes, c.NotCalled), msText(time.Duration(c.Latency.Max)), bucketsText(c.Latency.Buckets))
			rows++
		}
	}
	if rows == 0 {
		fmt.Fprintln(w, "(no calls)")
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "LAST ERRORS (each plugin's last failed call; a plugin that left, as it left)")
	errs := 0
	for _, p := range r.Status.Plugins {
		if e := p.LastError; e != nil {
			fmt.Fprintf(w, "%s\t%s %s: %s\n", p.Plugin, e.Event, e.Outcome, e.Error)
			errs++
		}
	}
	for _, c := range r.Status.RecentChanges {
		if e := c.LastError; e != nil && c.Change == adaptation.PluginLeft {
			fmt.Fprintf(w, "%s (left)\t%s %s: %s\n", c.Plugin, e.Event, e.Outcome, e.Error)
			errs++
		}
	}
	if errs == 0 {
		fmt.Fprintln(w, "(none)")
	}
	fmt.Fprintln(w)
}

// outcomesText lists the outcomes that occurred, ok first, then the calls
// the event's deadline left unmade: "ok 2, error 1, not called 1".
func outcomesText(counts map[adaptation.Outcome]uint64, notCalled uint64) string {
	var parts []string
	for _, o := range []adaptation.Outcome{adaptation.OutcomeOK, adaptation.OutcomeError, adaptation.OutcomeTimeout,
		adaptation.OutcomeLost, adaptation.OutcomeCanceled, adaptation.OutcomeRejected} {
		if n := counts[o]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", o, n))
		}
	}
	if notCalled > 0 {
		parts = append(parts, fmt.Sprintf("not called %d", notCalled))
	}
	return strings.Join(parts, ", ")
}

// bucketsText lists the non-empty buckets: "[≤500µs 2, ≤1ms 1]".
func bucketsText(buckets []adaptation.LatencyBucket) string {
	var parts []string
	for _, b := range buckets {
		if b.Count > 0 {
			le := "≤" + b.UpperBound
			if b.UpperBound == "+Inf" {
				le = ">30s"
			}
			parts = append(parts, fmt.Sprintf("%s %d", le, b.Count))
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// msText is a latency as the event table writes it: "0.31ms".
func msText(d time.Duration) string {
	return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
}
