// Command bench compares nrikit's runtime side (github.com/nrikit/nrikit/adaptation)
// with the reference one (github.com/containerd/nri v0.12.5 pkg/adaptation),
// in one run on one machine, against real plugins built on the reference
// stub (../modern):
//
//   - big-node synchronization: a plugin joins a node of -pods pods with
//     -per-pod containers each, first with each runtime's default timeouts
//     (is it synchronized or dropped?), then with the timeouts raised so
//     both succeed (time to join, peak heap, bytes allocated);
//   - event fan-out: -plugins plugins subscribed to all events, one
//     RunPodSandbox then -events CreateContainer calls (latency, allocations).
//
// Every measurement runs in its own child process (this binary re-executed
// with -mode), so the two runtimes' heaps never mix. Run it from this
// directory: go run . [-json]
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
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	implRef  = "reference"
	implOurs = "nrikit"
)

type options struct {
	// user flags
	jsonOut      bool
	pods, perPod int
	events       int
	warmup       int
	plugins      int
	gogc         int    // child: GC percent of the measured part
	gogcList     string // parent: the GC percents to measure raised-timeout sync at
	runs         int
	raised       time.Duration
	childTimeout time.Duration
	plugin       string
	modernDir    string
	skipSync     bool
	skipFanout   bool

	// child flags
	mode     string // "", sync, fanout
	impl     string
	timeouts string
}

func parseFlags() *options {
	o := &options{}
	flag.BoolVar(&o.jsonOut, "json", false, "print the results as JSON instead of a table")
	flag.IntVar(&o.pods, "pods", 10000, "big-node sync: pods")
	flag.IntVar(&o.perPod, "per-pod", 5, "big-node sync: containers per pod")
	flag.IntVar(&o.events, "events", 2000, "fan-out: measured CreateContainer events")
	flag.IntVar(&o.warmup, "warmup", 200, "fan-out: CreateContainer events before measuring")
	flag.IntVar(&o.plugins, "plugins", 3, "fan-out: plugins subscribed to all events")
	flag.IntVar(&o.runs, "runs", 3, "measured runs of each runtime (raised-timeout sync and fan-out); the table shows medians")
	flag.StringVar(&o.gogcList, "gogc", "10,100", "comma list of GC percents to run the raised-timeout sync at; the first is also used\n"+
		"for the default-timeout runs. A low one (10) makes the peak heap reflect live memory; 100 (Go's default) gives\n"+
		"realistic wall times")
	flag.DurationVar(&o.raised, "raised-timeout", 5*time.Minute, "big-node sync: the raised request (reference) / request+sync (nrikit) timeout")
	flag.DurationVar(&o.childTimeout, "child-timeout", 10*time.Minute, "give up on one measurement after this long")
	flag.StringVar(&o.plugin, "plugin", "", "prebuilt plugin binary from ../modern (default: build it)")
	flag.StringVar(&o.modernDir, "modern", "../modern", "directory of the reference-stub plugin module, to build it")
	flag.BoolVar(&o.skipSync, "skip-sync", false, "skip the big-node sync comparison")
	flag.BoolVar(&o.skipFanout, "skip-fanout", false, "skip the fan-out comparison")
	flag.StringVar(&o.mode, "mode", "", "internal: run one measurement (sync|fanout) and print it as JSON")
	flag.StringVar(&o.impl, "impl", "", "internal: "+implRef+"|"+implOurs)
	flag.StringVar(&o.timeouts, "timeouts", "default", "internal: default|raised")
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
	case "fanout":
		res, err = runFanout(o)
	default:
		err = fmt.Errorf("unknown mode %q", o.mode)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench %s %s: %v\n", o.mode, o.impl, err)
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
	Machine     machine       `json:"machine"`
	Runs        int           `json:"runs"`
	SyncDefault []*syncResult `json:"sync_default_timeouts,omitempty"` // reference, nrikit
	SyncRaised  []*syncBlock  `json:"sync_raised_timeouts,omitempty"`  // one per GC percent
	Fanout      *fanoutBlock  `json:"fanout,omitempty"`
	ElapsedNs   int64         `json:"elapsed_ns"`
}

// syncBlock is the raised-timeout sync runs at one GC percent.
type syncBlock struct {
	GCPercent int           `json:"gc_percent"`
	Median    []*syncResult `json:"median"` // per-metric medians: reference, nrikit
	Runs      []*syncResult `json:"runs"`
}

type fanoutBlock struct {
	Median []*fanoutResult `json:"median"` // per-metric medians: reference, nrikit
	Runs   []*fanoutResult `json:"runs"`
}

type machine struct {
	GoVersion  string `json:"go_version"`
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	NumCPU     int    `json:"num_cpu"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	CPU        string `json:"cpu,omitempty"`
	MemTotal   string `json:"mem_total,omitempty"`
	Reference  string `json:"reference"`
}

func parent(o *options) error {
	begin := time.Now()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if o.plugin == "" {
		dir, err := os.MkdirTemp("", "nri-bench-plugin")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		o.plugin = filepath.Join(dir, "modern-plugin")
		progress("building the reference-stub plugin from %s", o.modernDir)
		cmd := exec.Command("go", "build", "-o", o.plugin, ".")
		cmd.Dir = o.modernDir
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building the plugin in %s: %w", o.modernDir, err)
		}
	} else if o.plugin, err = filepath.Abs(o.plugin); err != nil {
		return err
	}

	if o.runs < 1 {
		return fmt.Errorf("-runs must be at least 1")
	}
	var gcs []int
	for _, f := range strings.Split(o.gogcList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return fmt.Errorf("-gogc: bad GC percent %q", f)
		}
		gcs = append(gcs, n)
	}
	rep := &report{Machine: machineInfo(), Runs: o.runs}
	run := func(mode, impl, timeouts string, gc int, out any) error {
		args := []string{
			"-mode", mode, "-impl", impl, "-timeouts", timeouts, "-plugin", o.plugin,
			"-pods", strconv.Itoa(o.pods), "-per-pod", strconv.Itoa(o.perPod),
			"-events", strconv.Itoa(o.events), "-warmup", strconv.Itoa(o.warmup),
			"-plugins", strconv.Itoa(o.plugins), "-gc-percent", strconv.Itoa(gc),
			"-raised-timeout", o.raised.String(), "-child-timeout", o.childTimeout.String(),
		}
		cmd := exec.Command(self, args...)
		var stdout bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s %s (%s): %w", mode, impl, timeouts, err)
		}
		return json.Unmarshal(stdout.Bytes(), out)
	}
	// order alternates the two runtimes from one run to the next, so that
	// neither always goes first.
	order := func(run int) []string {
		if run%2 == 0 {
			return []string{implRef, implOurs}
		}
		return []string{implOurs, implRef}
	}
	if !o.skipSync {
		for _, impl := range order(0) {
			r := &syncResult{}
			if err := run("sync", impl, "default", gcs[0], r); err != nil {
				return err
			}
			rep.SyncDefault = append(rep.SyncDefault, r)
		}
		for _, gc := range gcs {
			b := &syncBlock{GCPercent: gc}
			byImpl := map[string][]*syncResult{}
			for i := 0; i < o.runs; i++ {
				for _, impl := range order(i) {
					r := &syncResult{}
					if err := run("sync", impl, "raised", gc, r); err != nil {
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
	if !o.skipFanout {
		b := &fanoutBlock{}
		byImpl := map[string][]*fanoutResult{}
		for i := 0; i < o.runs; i++ {
			for _, impl := range order(i) {
				r := &fanoutResult{}
				if err := run("fanout", impl, "default", 0, r); err != nil {
					return err
				}
				b.Runs = append(b.Runs, r)
				byImpl[impl] = append(byImpl[impl], r)
			}
		}
		b.Median = []*fanoutResult{medianFanout(byImpl[implRef]), medianFanout(byImpl[implOurs])}
		rep.Fanout = b
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
		CPU: procField("/proc/cpuinfo", "model name"), MemTotal: memTotal(),
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
