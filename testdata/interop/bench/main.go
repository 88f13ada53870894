// SPDX-License-Identifier: Apache-2.0

// Command bench compares nrikit's runtime side (github.com/nrikit/nrikit/adaptation)
// with the reference one (github.com/containerd/nri v0.12.5 pkg/adaptation),
// in one run on one machine, against real plugins built on the reference
// stub (../modern), and against a floor: a do-nothing runtime side on
// nrikit's mux and ttrpc that makes the same ttrpc calls with the same
// payload (floor.go), in two variants (requests encoded per call, or ahead of
// time).
//
//   - events: plugins subscribed to every event (so each CreateContainer is
//     also a ValidateContainerAdjustment per plugin): CreateContainer
//     through 1 plugin and through -plugins plugins, the 11-event pod
//     lifecycle through 1 plugin, the throughput of -callers concurrent
//     callers through -plugins plugins, and CreateContainer through 2
//     plugins of which nrikit scopes the second out of the pod (an
//     operator's plugin_settings filter; create-scoped). Latency, the
//     runtime process's CPU time, allocations, plugin calls. -runs rounds; in each, every implementation runs
//     each workload once, in an order rotated round by round; the table
//     shows per-metric medians.
//   - big-node synchronization: a plugin joins a node of -pods pods with
//     -per-pod containers each, first with each runtime's default timeouts
//     (is it synchronized or dropped?), then with the timeouts raised so
//     both succeed (time to join, peak heap, bytes allocated).
//
// Every measurement runs in its own child process (this binary re-executed
// with -mode), so the runtimes' heaps never mix. Run it from this directory
// (go run . [-json]), or build it once (CGO_ENABLED=0 go build) with the
// plugin (-plugin PATH) and run both anywhere: with -plugin it needs no Go
// toolchain. Linux only.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	implRef      = "reference"
	implOurs     = "nrikit"
	implFloor    = "floor"     // do-nothing runtime side, requests encoded per call
	implFloorPre = "floor-pre" // the same, requests encoded ahead of time
)

// allImpls is the order of the first round, and of the table's columns.
var allImpls = []string{implRef, implOurs, implFloor, implFloorPre}

type options struct {
	// user flags
	jsonOut          bool
	pods, perPod     int
	events           int
	warmup           int
	lifecycles       int
	lifecycleWarmup  int
	throughputEvents int
	callers          int
	plugins          int
	gogc             int    // child: GC percent of the measured part
	gogcList         string // parent: the GC percents to measure raised-timeout sync at
	runs             int
	raised           time.Duration
	childTimeout     time.Duration
	plugin           string
	modernDir        string
	skipSync         bool
	skipEvents       bool
	impls            string
	workloads        string
	profileDir       string
	containerRecords int  // nrikit: container_records (0: off)
	scopeLast        bool // child: nrikit scopes the last plugin out of the workload's pods

	// child flags
	mode     string // "", sync, events
	impl     string
	timeouts string
	workload string
	round    int
}

func parseFlags() *options {
	o := &options{}
	flag.BoolVar(&o.jsonOut, "json", false, "print the results, every run included, as JSON instead of a table")
	flag.IntVar(&o.pods, "pods", 10000, "big-node sync: pods")
	flag.IntVar(&o.perPod, "per-pod", 5, "big-node sync: containers per pod")
	flag.IntVar(&o.events, "events", 1000, "CreateContainer workloads: measured CreateContainer events")
	flag.IntVar(&o.warmup, "warmup", 100, "CreateContainer and throughput workloads: CreateContainer events before measuring")
	flag.IntVar(&o.lifecycles, "lifecycles", 200, "lifecycle workload: measured pod lifecycles (11 events each)")
	flag.IntVar(&o.lifecycleWarmup, "lifecycle-warmup", 20, "lifecycle workload: pod lifecycles before measuring")
	flag.IntVar(&o.throughputEvents, "throughput-events", 1600, "throughput workload: measured CreateContainer events, split among the callers")
	flag.IntVar(&o.callers, "callers", 16, "throughput workload: concurrent callers, each with its own pod")
	flag.IntVar(&o.plugins, "plugins", 3, "plugins of the many-plugin CreateContainer and throughput workloads")
	flag.IntVar(&o.runs, "runs", 3, "rounds: each implementation runs each measurement once per round; the table shows medians")
	flag.StringVar(&o.impls, "impls", strings.Join(allImpls, ","), "event workloads: the implementations to measure (comma list)")
	flag.StringVar(&o.workloads, "workloads", "create-1,create-n,lifecycle,throughput,create-scoped", "event workloads to run (comma list)")
	flag.StringVar(&o.gogcList, "gogc", "10,100", "comma list of GC percents to run the raised-timeout sync at; the first is also used\n"+
		"for the default-timeout runs. A low one (10) makes the peak heap reflect live memory; 100 (Go's default) gives\n"+
		"realistic wall times")
	flag.DurationVar(&o.raised, "raised-timeout", 5*time.Minute, "big-node sync: the raised request (reference) / request+sync (nrikit) timeout")
	flag.DurationVar(&o.childTimeout, "child-timeout", 10*time.Minute, "give up on one measurement after this long")
	flag.StringVar(&o.plugin, "plugin", "", "prebuilt plugin binary from ../modern (default: build it, which needs the Go toolchain)")
	flag.StringVar(&o.modernDir, "modern", "../modern", "directory of the reference-stub plugin module, to build it")
	flag.BoolVar(&o.skipSync, "skip-sync", false, "skip the big-node sync comparison")
	flag.BoolVar(&o.skipEvents, "skip-events", false, "skip the event workloads")
	flag.BoolVar(&o.skipEvents, "skip-fanout", false, "same as -skip-events")
	flag.IntVar(&o.containerRecords, "container-records", 0, "nrikit: keep this many containers' records (container_records; 0: off), to measure what they cost")
	flag.StringVar(&o.profileDir, "cpuprofile", "", "event workloads: write a CPU profile of each measured part (runtime process) into this directory")
	flag.StringVar(&o.mode, "mode", "", "internal: run one measurement (sync|events) and print it as JSON")
	flag.StringVar(&o.impl, "impl", "", "internal: "+strings.Join(allImpls, "|"))
	flag.StringVar(&o.timeouts, "timeouts", "default", "internal: default|raised")
	flag.StringVar(&o.workload, "workload", "", "internal: "+wlCreate+"|"+wlLifecycle+"|"+wlThroughput)
	flag.IntVar(&o.round, "round", 0, "internal: the round, to name the CPU profile")
	flag.BoolVar(&o.scopeLast, "scope-last", false, "internal: nrikit gives the last plugin a scope of pods (runtime handler nvidia) that leaves the workload's pod out")
	flag.IntVar(&o.gogc, "gc-percent", 10, "internal: GC percent of the measured part")
	flag.Parse()
	return o
}

func main() {
	o := parseFlags()
	if o.mode != "" {
		os.Exit(child(o))
	}
	if err := parent(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// child runs one measurement and prints it as JSON on stdout.
func child(o *options) int {
	var (
		res any
		err error
	)
	switch o.mode {
	case "sync":
		res, err = runSync(o)
	case "events":
		res, err = runEvents(o)
	default:
		err = fmt.Errorf("unknown mode %q", o.mode)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench %s %s %s: %v\n", o.mode, o.workload, o.impl, err)
		return 1
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// report is everything one run measured.
type report struct {
	Machine     machine        `json:"machine"`
	Runs        int            `json:"runs"`
	Impls       []string       `json:"impls,omitempty"`                 // the event workloads' columns
	SyncDefault []*syncResult  `json:"sync_default_timeouts,omitempty"` // reference, nrikit
	SyncRaised  []*syncBlock   `json:"sync_raised_timeouts,omitempty"`  // one per GC percent
	Events      []*eventsBlock `json:"events,omitempty"`
	ElapsedNs   int64          `json:"elapsed_ns"`
}

// syncBlock is the raised-timeout sync runs at one GC percent.
type syncBlock struct {
	GCPercent int           `json:"gc_percent"`
	Median    []*syncResult `json:"median"` // per-metric medians: reference, nrikit
	Runs      []*syncResult `json:"runs"`
}

// eventsBlock is every run of one event workload.
type eventsBlock struct {
	Name     string `json:"name"` // as in -workloads
	Workload string `json:"workload"`
	Plugins  int    `json:"plugins"`
	// ScopedOut: nrikit scoped its last plugin out of the workload's pod.
	ScopedOut bool            `json:"scoped_out,omitempty"`
	Median    []*eventsResult `json:"median"` // per-metric medians, in the order of report.Impls
	Runs      []*eventsResult `json:"runs"`   // in run order
}

type machine struct {
	GoVersion  string `json:"go_version"`
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	NumCPU     int    `json:"num_cpu"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	CPU        string `json:"cpu,omitempty"`
	MemTotal   string `json:"mem_total,omitempty"`
	LoadAvg    string `json:"load_avg,omitempty"` // at the start of the run
	Reference  string `json:"reference"`
}

// workloadSpec is one event workload of -workloads.
type workloadSpec struct {
	name     string
	workload string
	plugins  int
	// scopeLast: nrikit scopes the last plugin out of the workload's pod
	// (create-scoped), as an operator's plugin_settings filter would.
	scopeLast bool
}

func workloadSpecs(o *options) ([]workloadSpec, error) {
	var specs []workloadSpec
	for _, name := range splitList(o.workloads) {
		switch name {
		case "create-1":
			specs = append(specs, workloadSpec{name, wlCreate, 1, false})
		case "create-n":
			specs = append(specs, workloadSpec{name, wlCreate, o.plugins, false})
		case "create-scoped":
			specs = append(specs, workloadSpec{name, wlCreate, 2, true})
		case "lifecycle":
			specs = append(specs, workloadSpec{name, wlLifecycle, 1, false})
		case "throughput":
			specs = append(specs, workloadSpec{name, wlThroughput, o.plugins, false})
		default:
			return nil, fmt.Errorf("-workloads: unknown workload %q (create-1, create-n, lifecycle, throughput, create-scoped)", name)
		}
	}
	return specs, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func parseImpls(s string) ([]string, error) {
	var impls []string
	for _, impl := range splitList(s) {
		known := false
		for _, k := range allImpls {
			known = known || impl == k
		}
		if !known {
			return nil, fmt.Errorf("-impls: unknown implementation %q (%s)", impl, strings.Join(allImpls, ", "))
		}
		impls = append(impls, impl)
	}
	if len(impls) == 0 {
		return nil, fmt.Errorf("-impls: none given")
	}
	return impls, nil
}

// rotate is impls rotated left by n: round n's order.
func rotate(impls []string, n int) []string {
	n %= len(impls)
	return append(append([]string(nil), impls[n:]...), impls[:n]...)
}

// preparePlugin returns the plugin binary: -plugin, or one built from -modern.
func preparePlugin(o *options) (cleanup func(), err error) {
	if o.plugin != "" {
		o.plugin, err = filepath.Abs(o.plugin)
		return func() {}, err
	}
	dir, err := os.MkdirTemp("", "nri-bench-plugin")
	if err != nil {
		return nil, err
	}
	o.plugin = filepath.Join(dir, "modern-plugin")
	progress("building the reference-stub plugin from %s", o.modernDir)
	cmd := exec.Command("go", "build", "-o", o.plugin, ".")
	cmd.Dir = o.modernDir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("building the plugin in %s (or give a prebuilt one with -plugin): %w", o.modernDir, err)
	}
	return func() { os.RemoveAll(dir) }, nil
}

func parent(o *options) error {
	begin := time.Now()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name     string
		v, least int
	}{
		{"-runs", o.runs, 1}, {"-events", o.events, 1}, {"-lifecycles", o.lifecycles, 1},
		{"-throughput-events", o.throughputEvents, 1}, {"-callers", o.callers, 1}, {"-plugins", o.plugins, 1},
		{"-pods", o.pods, 1}, {"-per-pod", o.perPod, 0}, {"-warmup", o.warmup, 0}, {"-lifecycle-warmup", o.lifecycleWarmup, 0},
	} {
		if f.v < f.least {
			return fmt.Errorf("%s must be at least %d", f.name, f.least)
		}
	}
	var gcs []int
	for _, f := range splitList(o.gogcList) {
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return fmt.Errorf("-gogc: bad GC percent %q", f)
		}
		gcs = append(gcs, n)
	}
	if len(gcs) == 0 {
		return fmt.Errorf("-gogc: no GC percent")
	}
	impls, err := parseImpls(o.impls)
	if err != nil {
		return err
	}
	specs, err := workloadSpecs(o)
	if err != nil {
		return err
	}
	if o.profileDir != "" {
		if o.profileDir, err = filepath.Abs(o.profileDir); err != nil {
			return err
		}
		if err := os.MkdirAll(o.profileDir, 0o755); err != nil {
			return err
		}
	}
	cleanup, err := preparePlugin(o)
	if err != nil {
		return err
	}
	defer cleanup()

	rep := &report{Machine: machineInfo(), Runs: o.runs}
	run := func(out any, what ...string) error {
		args := append(slices.Clone(what), "-plugin", o.plugin,
			"-pods", strconv.Itoa(o.pods), "-per-pod", strconv.Itoa(o.perPod),
			"-events", strconv.Itoa(o.events), "-warmup", strconv.Itoa(o.warmup),
			"-lifecycles", strconv.Itoa(o.lifecycles), "-lifecycle-warmup", strconv.Itoa(o.lifecycleWarmup),
			"-throughput-events", strconv.Itoa(o.throughputEvents), "-callers", strconv.Itoa(o.callers),
			"-raised-timeout", o.raised.String(), "-child-timeout", o.childTimeout.String(),
			"-cpuprofile", o.profileDir, "-container-records", strconv.Itoa(o.containerRecords),
		)
		cmd := exec.Command(self, args...)
		var stdout bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("child %s: %w", strings.Join(what, " "), err)
		}
		return json.Unmarshal(stdout.Bytes(), out)
	}
	runSyncChild := func(impl, timeouts string, gc int) (*syncResult, error) {
		r := &syncResult{}
		return r, run(r, "-mode", "sync", "-impl", impl, "-timeouts", timeouts, "-gc-percent", strconv.Itoa(gc))
	}
	// The sync comparison alternates the reference and nrikit run by run.
	syncOrder := func(run int) []string { return rotate([]string{implRef, implOurs}, run) }
	if !o.skipSync {
		for _, impl := range syncOrder(0) {
			r, err := runSyncChild(impl, "default", gcs[0])
			if err != nil {
				return err
			}
			rep.SyncDefault = append(rep.SyncDefault, r)
		}
		for _, gc := range gcs {
			b := &syncBlock{GCPercent: gc}
			byImpl := map[string][]*syncResult{}
			for i := 0; i < o.runs; i++ {
				for _, impl := range syncOrder(i) {
					r, err := runSyncChild(impl, "raised", gc)
					if err != nil {
						return err
					}
					b.Runs = append(b.Runs, r)
					byImpl[impl] = append(byImpl[impl], r)
				}
			}
			b.Median = []*syncResult{medianSync(byImpl[implRef]), medianSync(byImpl[implOurs])}
			rep.SyncRaised = append(rep.SyncRaised, b)
		}
	}
	if !o.skipEvents && len(specs) > 0 {
		rep.Impls = impls
		blocks := make([]*eventsBlock, len(specs))
		for i, s := range specs {
			blocks[i] = &eventsBlock{Name: s.name, Workload: s.workload, Plugins: s.plugins, ScopedOut: s.scopeLast}
		}
		// Round i runs every workload on every implementation, the
		// implementations in an order rotated by i, so that none always
		// goes first.
		for i := 0; i < o.runs; i++ {
			for j, s := range specs {
				for _, impl := range rotate(impls, i) {
					r := &eventsResult{}
					if err := run(r, "-mode", "events", "-impl", impl, "-workload", s.workload,
						"-plugins", strconv.Itoa(s.plugins), "-round", strconv.Itoa(i), "-scope-last="+strconv.FormatBool(s.scopeLast)); err != nil {
						return err
					}
					blocks[j].Runs = append(blocks[j].Runs, r)
				}
			}
		}
		for _, b := range blocks {
			for _, impl := range impls {
				var rs []*eventsResult
				for _, r := range b.Runs {
					if r.Impl == impl {
						rs = append(rs, r)
					}
				}
				b.Median = append(b.Median, medianEvents(rs))
			}
		}
		rep.Events = blocks
	}
	rep.ElapsedNs = int64(time.Since(begin))
	if o.jsonOut {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printTable(os.Stdout, rep, o)
	return nil
}

func machineInfo() machine {
	m := machine{
		GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		NumCPU: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		CPU: procField("/proc/cpuinfo", "model name"), MemTotal: memTotal(), LoadAvg: loadAvg(),
		Reference: "github.com/containerd/nri " + referenceVersion(),
	}
	return m
}

// memTotal is the machine's RAM from /proc/meminfo, in GiB.
func memTotal() string {
	var kb uint64
	if _, err := fmt.Sscanf(procField("/proc/meminfo", "MemTotal"), "%d kB", &kb); err != nil {
		return ""
	}
	return fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
}

// loadAvg is the 1, 5 and 15 minute load averages from /proc/loadavg.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
