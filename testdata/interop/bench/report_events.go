// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// printEvents prints one table per event workload: the medians of each
// implementation, nrikit's ratio to the reference, and its overhead above
// the floor relative to the reference's.
func printEvents(out io.Writer, rep *report) {
	floor := floorColumn(rep.Impls)
	fmt.Fprintf(out, "\n2. Events through reference-stub v0.12.5 plugins (testdata/interop/modern, separate processes, over the socket),\n")
	fmt.Fprintf(out, "   each started with -events all: subscribed to every event%s, ValidateContainerAdjustment included.\n", masks(rep))
	fmt.Fprintf(out, "   So a CreateContainer is a CreateContainer call to each plugin in turn, then a ValidateContainerAdjustment\n")
	fmt.Fprintf(out, "   call to each at once; every other event one call per plugin.\n")
	fmt.Fprintf(out, "   reference: containerd/nri v0.12.5 pkg/adaptation; nrikit: this tree's adaptation;\n")
	fmt.Fprintf(out, "   floor: a do-nothing runtime side on nrikit's mux + ttrpc making the same calls with the same payload,\n")
	fmt.Fprintf(out, "   requests encoded per call (reflective proto.Marshal); floor-pre: the same, requests encoded ahead of time.\n")
	fmt.Fprintf(out, "   ours/ref: nrikit / reference. over floor: (nrikit - %s) / (reference - %s), nrikit's overhead above the\n", floor, floor)
	fmt.Fprintf(out, "   floor as a share of the reference's. CPU: the runtime process's user+sys time (getrusage; the plugins are\n")
	fmt.Fprintf(out, "   other processes); allocs, alloc bytes: its Go heap allocations. plugin calls: the floor's count, nrikit's and the\n")
	fmt.Fprintf(out, "   reference's metrics' (RecordPluginInvocation, PluginInvoked); bytes to\n")
	fmt.Fprintf(out, "   and from plugins: the plugin processes' reads and writes (/proc/PID/io), the same for the same calls and payload.\n")
	fmt.Fprintf(out, "   Medians of %d rounds; in each round every implementation runs each workload once, in its own process,\n", rep.Runs)
	fmt.Fprintf(out, "   the order rotated round by round; Go's default GC settings.\n")
	for i, b := range rep.Events {
		fmt.Fprintf(out, "\n   %c) %s\n", 'a'+i, describe(b))
		t := &table{}
		t.row(append(append([]string{""}, rep.Impls...), "ours/ref", "over floor")...)
		unit := "event"
		if b.Workload == wlLifecycle {
			unit = "lifecycle"
		}
		c := cols{rep: rep, b: b, t: t, floor: floor}
		if b.Workload == wlThroughput {
			c.metric("events/s", func(r *eventsResult) float64 { return r.OpsPerSec }, rate, higherIsBetter)
		}
		c.metric(unit+" p50", func(r *eventsResult) float64 { return float64(r.P50Ns) }, latency, cost)
		c.metric(unit+" p99", func(r *eventsResult) float64 { return float64(r.P99Ns) }, latency, cost)
		c.metric(unit+" mean", func(r *eventsResult) float64 { return float64(r.MeanNs) }, latency, cost)
		c.metric("CPU/"+unit, func(r *eventsResult) float64 { return r.CPUNsPerOp }, latency, cost)
		c.metric("allocs/"+unit, func(r *eventsResult) float64 { return r.AllocsPerOp }, count, cost)
		c.metric("alloc bytes/"+unit, func(r *eventsResult) float64 { return r.BytesPerOp }, count, cost)
		c.metric("plugin calls/"+unit, func(r *eventsResult) float64 { return r.RPCsPerOp }, count, wireFact)
		c.metric("bytes to plugins/"+unit, func(r *eventsResult) float64 { return r.PluginReadPerOp }, count, wireFact)
		c.metric("bytes from plugins/"+unit, func(r *eventsResult) float64 { return r.PluginWritePerOp }, count, wireFact)
		c.perRound(unit+" p50 by round", func(r *eventsResult) string { return latency(float64(r.P50Ns)) })
		t.write(out, true)
	}
}

// floorColumn is the floor the overhead is measured from: floor-pre where it
// ran, else floor.
func floorColumn(impls []string) string {
	if slices.Contains(impls, implFloorPre) {
		return implFloorPre
	}
	if slices.Contains(impls, implFloor) {
		return implFloor
	}
	return ""
}

func masks(rep *report) string {
	for _, b := range rep.Events {
		for _, r := range b.Runs {
			if len(r.PluginMasks) > 0 {
				return " (mask " + strings.Join(slices.Compact(slices.Sorted(slices.Values(r.PluginMasks))), ", ") + " in Configure's reply)"
			}
		}
	}
	return ""
}

func describe(b *eventsBlock) string {
	r := b.Median[0]
	plugins := fmt.Sprintf("%d plugin", b.Plugins)
	if b.Plugins != 1 {
		plugins += "s"
	}
	switch b.Workload {
	case wlCreate:
		if b.ScopedOut {
			return fmt.Sprintf("CreateContainer through %s, nrikit's last one (%d-p%d) scoped to the pods of runtime handler nvidia\n"+
				"      (plugin_settings filter; the reference has no such setting), the pod's handler runc: %d events measured\n"+
				"      one at a time after %d warm-up; the reference and the floors call every plugin", plugins, 10+b.Plugins-1, b.Plugins-1, r.Ops, r.Warmup)
		}
		return fmt.Sprintf("CreateContainer through %s: %d events measured one at a time after %d warm-up, all in one pod", plugins, r.Ops, r.Warmup)
	case wlLifecycle:
		return fmt.Sprintf("Pod lifecycle through %s: %d lifecycles measured one at a time after %d warm-up, each a new pod with one\n"+
			"      container: RunPodSandbox, CreateContainer, PostCreateContainer, StartContainer, PostStartContainer, UpdateContainer,\n"+
			"      PostUpdateContainer, StopContainer, RemoveContainer, StopPodSandbox, RemovePodSandbox", plugins, r.Ops, r.Warmup)
	case wlThroughput:
		return fmt.Sprintf("Throughput through %s: %d concurrent callers, each creating its own containers in its own pod;\n"+
			"      %d CreateContainer events measured after %d warm-up; latency under that load", plugins, r.Callers, r.Ops, r.Warmup)
	}
	return b.Name
}

type cols struct {
	rep   *report
	b     *eventsBlock
	t     *table
	floor string
}

func (c cols) median(impl string) *eventsResult {
	for i, name := range c.rep.Impls {
		if name == impl && i < len(c.b.Median) {
			return c.b.Median[i]
		}
	}
	return nil
}

// metric adds a row of medians. For a rate (higher is better), the overhead
// above the floor is computed on its inverse, the time per event.
// The kinds of metric rows.
const (
	cost = iota // lower is better
	higherIsBetter
	wireFact // a check of the workload, not a cost: no overhead column
)

func (c cols) metric(name string, f func(*eventsResult) float64, format func(float64) string, kind int) {
	row := []string{name}
	vals := map[string]float64{}
	for i, impl := range c.rep.Impls {
		m := c.b.Median[i]
		vals[impl] = f(m)
		row = append(row, format(f(m)))
	}
	ref, okRef := vals[implRef]
	ours, okOurs := vals[implOurs]
	ratioCell, overCell := "-", "-"
	if okRef && okOurs && ref > 0 {
		ratioCell = fmt.Sprintf("%.2f", ours/ref)
	}
	if fl, ok := vals[c.floor]; ok && okRef && okOurs && kind != wireFact {
		if kind == higherIsBetter {
			ref, ours, fl = inverse(ref), inverse(ours), inverse(fl)
		}
		if ref-fl > 0 {
			overCell = fmt.Sprintf("%.2f", (ours-fl)/(ref-fl))
		}
	}
	if vals[implRef] == 0 && vals[implOurs] == 0 {
		ratioCell, overCell = "-", "-"
	}
	c.t.row(append(row, ratioCell, overCell)...)
}

func inverse(v float64) float64 {
	if v == 0 {
		return 0
	}
	return 1 / v
}

// perRound adds a row with each implementation's values in round order.
func (c cols) perRound(name string, f func(*eventsResult) string) {
	row := []string{name}
	for _, impl := range c.rep.Impls {
		var vs []string
		for _, r := range c.b.Runs {
			if r.Impl == impl {
				vs = append(vs, strings.TrimSuffix(strings.TrimSuffix(f(r), " µs"), " ms"))
			}
		}
		row = append(row, strings.Join(vs, "/"))
	}
	c.t.row(append(row, "", "")...)
}

func latency(ns float64) string {
	switch {
	case ns == 0:
		return "-"
	case ns >= 10e6:
		return fmt.Sprintf("%.1f ms", ns/1e6)
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	}
	return fmt.Sprintf("%.1f µs", ns/1e3)
}

func rate(v float64) string { return fmt.Sprintf("%.0f", v) }

func count(v float64) string {
	if v == 0 {
		return "-"
	}
	if v >= 10 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// printTargets checks the ratios against the targets in docs/performance.md.
func printTargets(out io.Writer, rep *report) {
	type target struct {
		what    string
		name    string
		f       func(*eventsResult) float64
		limit   float64
		atLeast bool
	}
	p50 := func(r *eventsResult) float64 { return float64(r.P50Ns) }
	targets := []target{
		{"CreateContainer p50, 1 plugin", "create-1", p50, 0.8, false},
		{"CreateContainer p50, n plugins", "create-n", p50, 0.85, false},
		{"lifecycle p50, 1 plugin", "lifecycle", p50, 0.8, false},
		{"runtime CPU per CreateContainer, 1 plugin", "create-1", func(r *eventsResult) float64 { return r.CPUNsPerOp }, 0.6, false},
		{"allocations per CreateContainer, 1 plugin", "create-1", func(r *eventsResult) float64 { return r.AllocsPerOp }, 0.5, false},
		{"throughput, concurrent callers, n plugins", "throughput", func(r *eventsResult) float64 { return r.OpsPerSec }, 2.2, true},
	}
	var lines []string
	for _, tg := range targets {
		for _, b := range rep.Events {
			if b.Name != tg.name {
				continue
			}
			c := cols{rep: rep, b: b}
			ref, ours := c.median(implRef), c.median(implOurs)
			if ref == nil || ours == nil || tg.f(ref) == 0 {
				continue
			}
			what := strings.ReplaceAll(tg.what, "n plugins", fmt.Sprintf("%d plugins", b.Plugins))
			lines = append(lines, verdictLine(what, tg.f(ours), tg.f(ref), tg.limit, tg.atLeast))
		}
	}
	for _, b := range rep.SyncRaised {
		ref, ours := b.Median[0], b.Median[1]
		lines = append(lines,
			verdictLine(fmt.Sprintf("big-node sync time (GOGC=%d)", b.GCPercent), float64(ours.WallNs), float64(ref.WallNs), 0.6, false),
			verdictLine(fmt.Sprintf("big-node sync peak RSS (GOGC=%d)", b.GCPercent), float64(ours.RSSPeakBytes), float64(ref.RSSPeakBytes), 0.6, false),
			verdictLine(fmt.Sprintf("big-node sync peak RSS over the state held before (GOGC=%d)", b.GCPercent), float64(ours.rssGrowth()), float64(ref.rssGrowth()), 0.3, false))
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(out, "\n3. Targets in docs/performance.md (ratios of the medians above)\n%s\n", strings.Join(lines, "\n"))
}

// verdictLine says whether ours/ref, as printed, meets a target.
func verdictLine(what string, ours, ref, limit float64, atLeast bool) string {
	if ref == 0 || ours == 0 {
		return fmt.Sprintf("   %-52s     -", what+", ours/ref:")
	}
	r := math.Round(ours/ref*100) / 100
	met, op := r <= limit, "≤"
	if atLeast {
		met, op = r >= limit, "≥"
	}
	verdict := "met"
	if !met {
		verdict = "NOT met"
	}
	return fmt.Sprintf("   %-52s %5.2f  (target %s %.2f: %s)", what+", ours/ref:", r, op, limit, verdict)
}
