// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

func printTable(out io.Writer, rep *report, o *options) {
	m := rep.Machine
	fmt.Fprintf(out, "nrikit vs reference NRI adaptation: one run, each measurement in its own process\n")
	fmt.Fprintf(out, "machine: %s/%s, %d CPUs, GOMAXPROCS=%d, %s, %s, RAM %s, load average at start %s\n",
		m.GOOS, m.GOARCH, m.NumCPU, m.GOMAXPROCS, m.GoVersion, m.CPU, m.MemTotal, m.LoadAvg)
	fmt.Fprintf(out, "reference: %s pkg/adaptation; plugins: reference stub v0.12.5 (testdata/interop/modern), external, over the socket\n", m.Reference)

	all := append([]*syncResult(nil), rep.SyncDefault...)
	for _, b := range rep.SyncRaised {
		all = append(all, b.Runs...)
	}
	if len(all) > 0 {
		fmt.Fprintf(out, "\n1. Big-node sync: %d pods + %d containers (fakenode.Node(%d, %d)); encoded %s\n",
			all[0].Pods, all[0].Containers, o.pods, o.perPod, stateSizes(all))
		fmt.Fprintf(out, "   one plugin (-events RunPodSandbox) connects; time runs from its process start to its registration\n")
	}
	if len(rep.SyncDefault) == 2 {
		ref, ours := rep.SyncDefault[0], rep.SyncDefault[1]
		fmt.Fprintf(out, "\n   a) default timeouts, GOGC=%d during the measured part\n", ref.GCPercent)
		t := &table{}
		t.row("", "reference", "nrikit")
		t.row("timeouts", ref.TimeoutSetting, ours.TimeoutSetting)
		t.row("outcome", ref.Outcome+" after "+dur(ref.WallNs), ours.Outcome+" after "+dur(ours.WallNs))
		t.row("sync callback", cbResult(ref), cbResult(ours))
		t.row("plugin process", ref.PluginStatus, ours.PluginStatus)
		t.write(out, false)
		for _, r := range rep.SyncDefault {
			if r.Reason != "" {
				fmt.Fprintf(out, "   %s sync error: %s\n", r.Impl, r.Reason)
			}
		}
	}
	for i, b := range rep.SyncRaised {
		ref, ours := b.Median[0], b.Median[1]
		fmt.Fprintf(out, "\n   %c) raised timeouts (reference: %s; nrikit: %s), GOGC=%d during the measured part\n",
			'b'+i, ref.TimeoutSetting, ours.TimeoutSetting, b.GCPercent)
		if b.GCPercent <= 20 {
			fmt.Fprintf(out, "      (a low GOGC makes the peak heap track live memory rather than GC pacing; it also slows both runtimes)\n")
		}
		fmt.Fprintf(out, "      median of %d runs per runtime, alternating which goes first\n", rep.Runs)
		t := &table{}
		t.row("", "reference", "nrikit", "ours/ref")
		t.row("outcome", ref.Outcome, ours.Outcome, "")
		t.row("plugin start -> synchronized", dur(ref.WallNs), dur(ours.WallNs), ratio(ours.WallNs, ref.WallNs))
		t.row("  of which SyncFn -> callback returned", dur(ref.SyncNs), dur(ours.SyncNs), ratio(ours.SyncNs, ref.SyncNs))
		t.row("live heap before (holds the state)", mibs(ref.HeapBaseBytes), mibs(ours.HeapBaseBytes), ratio(ours.HeapBaseBytes, ref.HeapBaseBytes))
		t.row("peak heap during sync", mibs(ref.HeapPeakBytes), mibs(ours.HeapPeakBytes), ratio(ours.HeapPeakBytes, ref.HeapPeakBytes))
		t.row("peak heap - before", mibs(ref.PeakOverBaseBytes), mibs(ours.PeakOverBaseBytes), ratio(ours.PeakOverBaseBytes, ref.PeakOverBaseBytes))
		t.row("RSS before", mibs(ref.RSSBaseBytes), mibs(ours.RSSBaseBytes), ratio(ours.RSSBaseBytes, ref.RSSBaseBytes))
		t.row("peak RSS during sync", mibs(ref.RSSPeakBytes), mibs(ours.RSSPeakBytes), ratio(ours.RSSPeakBytes, ref.RSSPeakBytes))
		t.row("peak RSS - before", mibs(ref.rssGrowth()), mibs(ours.rssGrowth()), ratio(ours.rssGrowth(), ref.rssGrowth()))
		t.row("allocated (TotalAlloc delta)", mibs(ref.AllocBytes), mibs(ours.AllocBytes), ratio(ours.AllocBytes, ref.AllocBytes))
		t.row("GC cycles", fmt.Sprint(ref.NumGC), fmt.Sprint(ours.NumGC), "")
		t.row("wall time of each run", runTimes(b.Runs, implRef), runTimes(b.Runs, implOurs), "")
		t.write(out, true)
		for _, r := range b.Runs {
			if r.Outcome != "synchronized" {
				fmt.Fprintf(out, "   %s did not synchronize: %s %s\n", r.Impl, r.Reason, strings.Join(r.RuntimeLog, " | "))
			}
		}
	}
	if len(rep.SyncRaised) > 0 {
		m := rep.SyncRaised[0].Median
		fmt.Fprintf(out, "   plugin process: reference %s; nrikit %s\n", m[0].PluginStatus, m[1].PluginStatus)
	}
	if len(rep.Events) > 0 {
		printEvents(out, rep)
	}
	printTargets(out, rep)
	fmt.Fprintf(out, "\nelapsed: %s\n", time.Duration(rep.ElapsedNs).Round(100*time.Millisecond))
}

// table prints rows with the first column left-aligned.
type table struct{ rows [][]string }

func (t *table) row(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(out io.Writer, alignRight bool) {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range t.rows {
		var b strings.Builder
		b.WriteString("   ")
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			switch {
			case i == 0:
				b.WriteString(c + pad)
			case alignRight:
				b.WriteString("  " + pad + c)
			default:
				b.WriteString("  " + c + pad)
			}
		}
		fmt.Fprintln(out, strings.TrimRight(b.String(), " "))
	}
}

func stateSizes(rs []*syncResult) string {
	sizes := map[string]int{}
	for _, r := range rs {
		sizes[r.Impl] = r.StateBytes
	}
	return fmt.Sprintf("reference %.1f MB, nrikit %.1f MB", float64(sizes[implRef])/1e6, float64(sizes[implOurs])/1e6)
}

// runTimes lists the wall times of impl's runs, in run order.
func runTimes(rs []*syncResult, impl string) string {
	var ts []string
	for _, r := range rs {
		if r.Impl == impl {
			ts = append(ts, fmt.Sprintf("%.2f", time.Duration(r.WallNs).Seconds()))
		}
	}
	return strings.Join(ts, "/") + " s"
}

func cbResult(r *syncResult) string {
	switch {
	case r.Reason != "":
		return "failed (see below)"
	case r.SyncNs > 0:
		return "returned ok after " + dur(r.SyncNs)
	}
	return "not called"
}

func dur(n int64) string {
	d := time.Duration(n)
	switch {
	case d == 0:
		return "-"
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	default:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	}
}

// ns prints nanoseconds with thousands separators.
func ns(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s + " ns"
}

func mibs(b uint64) string { return fmt.Sprintf("%.0f MiB", mib(b)) }

func ratio[T int64 | uint64 | float64](ours, ref T) string {
	if ref == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(ours)/float64(ref))
}

// procField returns the value of the first "key: value" line of a /proc file.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.Join(strings.Fields(v), " ")
		}
	}
	return ""
}

func referenceVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/containerd/nri" {
				return d.Version
			}
		}
	}
	return "(unknown version)"
}
