// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/fakenode"
)

// The event workloads. Each runs in its own child process with its own
// plugin processes, all subscribed to every event.
const (
	wlCreate     = "create"     // one pod, CreateContainer after CreateContainer
	wlLifecycle  = "lifecycle"  // the 11 events of a pod with one container, pod after pod
	wlThroughput = "throughput" // -callers concurrent callers, each creating containers in its own pod
)

// eventsResult is one run of one workload on one runtime.
type eventsResult struct {
	Impl     string `json:"impl"`
	Round    int    `json:"round"`
	Workload string `json:"workload"`
	Plugins  int    `json:"plugins"`
	Callers  int    `json:"callers"`
	// Ops is the number of measured operations: CreateContainer calls, or
	// lifecycles of 11 events; Warmup those before measuring.
	Ops    int `json:"ops"`
	Warmup int `json:"warmup"`
	// Latency of one operation.
	P50Ns  int64 `json:"p50_ns"`
	P99Ns  int64 `json:"p99_ns"`
	MeanNs int64 `json:"mean_ns"` // wall time of the measured loop / ops (throughput: mean latency)
	MaxNs  int64 `json:"max_ns"`
	// OpsPerSec is ops over the wall time of the measured part.
	OpsPerSec float64 `json:"ops_per_sec"`
	ElapsedNs int64   `json:"elapsed_ns"`
	// The runtime process's CPU time (getrusage RUSAGE_SELF, user+sys) over
	// the measured part, per operation; the plugins are other processes.
	CPUNsPerOp  float64 `json:"cpu_ns_per_op"`
	UserNs      int64   `json:"user_ns"`
	SysNs       int64   `json:"sys_ns"`
	AllocsPerOp float64 `json:"allocs_per_op"`
	BytesPerOp  float64 `json:"bytes_per_op"`
	NumGC       uint32  `json:"num_gc"`
	// RPCsPerOp is the plugin calls per operation (the floor counts its
	// own; nrikit's and the reference's metrics report theirs). Floor
	// only: PluginMasks are the event masks the plugins subscribed with (hex).
	RPCsPerOp   float64  `json:"rpcs_per_op,omitempty"`
	PluginMasks []string `json:"plugin_masks,omitempty"`
	// ScopedOut: nrikit's last plugin had a scope of pods that leaves the
	// workload's pod out (-scope-last).
	ScopedOut bool `json:"scoped_out,omitempty"`
	// The bytes the plugin processes read and wrote per operation, all of
	// them together (/proc/PID/io rchar, wchar: their socket traffic, as
	// they log to /dev/null): the same payload gives the same figures.
	PluginReadPerOp  float64 `json:"plugin_read_per_op"`
	PluginWritePerOp float64 `json:"plugin_write_per_op"`
}

// workloadData makes the pods and containers of a workload: pods[p] has
// ctrs[p].
func workloadData(o *options) ([]*api.PodSandbox, [][]*api.Container, []event) {
	var pods, perPod int
	var events []event
	switch o.workload {
	case wlCreate:
		pods, perPod, events = 1, o.warmup+o.events, []event{evRunPod, evCreate}
	case wlLifecycle:
		pods, perPod, events = o.lifecycleWarmup+o.lifecycles, 1, lifecycle
	case wlThroughput:
		pods, perPod, events = o.callers, perCaller(o.warmup, o.callers)+perCaller(o.throughputEvents, o.callers), []event{evRunPod, evCreate}
	}
	ps, cs := fakenode.Node(pods, perPod)
	byPod := make([][]*api.Container, pods)
	for i := range ps {
		byPod[i] = cs[i*perPod : (i+1)*perPod]
	}
	return ps, byPod, events
}

// perCaller splits n operations among callers, rounding up.
func perCaller(n, callers int) int { return (n + callers - 1) / callers }

func runEvents(o *options) (*eventsResult, error) {
	res := &eventsResult{Impl: o.impl, Round: o.round, Workload: o.workload, Plugins: o.plugins, Callers: 1, ScopedOut: o.scopeLast}
	pods, ctrs, events := workloadData(o)

	dir, err := tempDir()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	var count atomic.Int64
	cfg := &rtConfig{
		dir: dir, wlPods: pods, wlCtrs: ctrs, events: events, log: &logCapture{}, records: o.containerRecords,
		scoped: o.scopedPlugin(),
		hooks:  hooks{syncStart: func() {}, syncDone: func(error) {}, count: func(n int) { count.Store(int64(n)) }},
	}
	rt, err := newRuntime(o.impl, cfg)
	if err != nil {
		return nil, err
	}
	cfg.wlPods, cfg.wlCtrs = nil, nil

	var procs []*pluginProc
	defer func() {
		rt.stop()
		// The reference's Stop leaves external plugins connected: give each
		// a grace period, then kill it.
		var wg sync.WaitGroup
		for _, p := range procs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p.waitExit(stopGrace)
			}()
		}
		wg.Wait()
	}()
	for i := 0; i < o.plugins; i++ {
		p, err := startPlugin(o.plugin, cfg.socket(), fmt.Sprint(10+i), fmt.Sprintf("p%d", i), "all")
		if err != nil {
			return nil, err
		}
		procs = append(procs, p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err = waitFor(ctx, func() bool { return count.Load() == int64(o.plugins) })
	cancel()
	if err != nil {
		return nil, fmt.Errorf("%s: %d of %d plugins registered: %w (log: %q)", o.impl, count.Load(), o.plugins, err, cfg.log.get())
	}
	if err := rt.ready(); err != nil {
		return nil, err
	}
	for _, p := range procs {
		pluginPIDs = append(pluginPIDs, p.cmd.Process.Pid)
	}
	if f, ok := rt.(*floorRuntime); ok {
		for _, p := range f.plugins {
			res.PluginMasks = append(res.PluginMasks, fmt.Sprintf("%#x", int32(p.mask)))
		}
	}

	if o.profileDir != "" {
		name := fmt.Sprintf("%s-%d-%s-round%d.pprof", o.workload, o.plugins, o.impl, o.round)
		f, err := os.Create(filepath.Join(o.profileDir, name))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		profileTo = f
	}
	var lat []int64
	var m measurement
	switch o.workload {
	case wlCreate:
		lat, m, err = measureCreate(o, rt, res)
	case wlLifecycle:
		lat, m, err = measureLifecycles(o, rt, res)
	case wlThroughput:
		lat, m, err = measureThroughput(o, rt, res)
	default:
		err = fmt.Errorf("unknown workload %q", o.workload)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w (log: %q)", o.impl, o.workload, err, cfg.log.get())
	}
	if c := count.Load(); c != int64(o.plugins) {
		return nil, fmt.Errorf("%s: %d of %d plugins left after the run (log: %q)", o.impl, c, o.plugins, cfg.log.get())
	}
	m.fill(res, lat)
	progress("%s %s, %d plugins: p50 %v p99 %v, %.0f ops/s, CPU %v/op, %.0f allocs/op", o.workload, o.impl, o.plugins,
		time.Duration(res.P50Ns), time.Duration(res.P99Ns), res.OpsPerSec, time.Duration(res.CPUNsPerOp), res.AllocsPerOp)
	return res, nil
}

// scopedPlugin is the ID of the plugin nrikit scopes out of the workload's
// pods with -scope-last (the last one started), "" without.
func (o *options) scopedPlugin() string {
	if !o.scopeLast || o.impl != implOurs {
		return ""
	}
	return fmt.Sprintf("%d-p%d", 10+o.plugins-1, o.plugins-1)
}

// annotating is the plugins whose annotation a CreateContainer's merged
// adjustment holds: every plugin, less one nrikit scoped out.
func (o *options) annotating() int {
	if o.scopedPlugin() != "" {
		return o.plugins - 1
	}
	return o.plugins
}

// checkCreate fails an event whose merged adjustment lacks a plugin's
// annotation.
func checkCreate(n, plugins int, what string) error {
	if n != plugins {
		return fmt.Errorf("%s: merged adjustment has %d annotations, want one from each of %d plugins", what, n, plugins)
	}
	return nil
}

func measureCreate(o *options, rt runtimeUnderTest, res *eventsResult) ([]int64, measurement, error) {
	ctx := context.Background()
	res.Ops, res.Warmup = o.events, o.warmup
	if _, err := rt.do(ctx, evRunPod, 0, 0); err != nil {
		return nil, measurement{}, fmt.Errorf("RunPodSandbox: %w", err)
	}
	for i := 0; i < o.warmup; i++ {
		n, err := rt.do(ctx, evCreate, 0, i)
		if err == nil {
			err = checkCreate(n, o.annotating(), "warm-up CreateContainer")
		}
		if err != nil {
			return nil, measurement{}, fmt.Errorf("warm-up CreateContainer %d: %w", i, err)
		}
	}
	lat := make([]int64, o.events)
	m := startMeasurement()
	for i := range lat {
		t := time.Now()
		n, err := rt.do(ctx, evCreate, 0, o.warmup+i)
		lat[i] = int64(time.Since(t))
		if err == nil {
			err = checkCreate(n, o.annotating(), "CreateContainer")
		}
		if err != nil {
			return nil, measurement{}, fmt.Errorf("CreateContainer %d: %w", i, err)
		}
	}
	m.end()
	return lat, m, nil
}

func runLifecycle(ctx context.Context, rt runtimeUnderTest, p, plugins int) error {
	for _, ev := range lifecycle {
		n, err := rt.do(ctx, ev, p, 0)
		if err == nil && ev == evCreate {
			err = checkCreate(n, plugins, "CreateContainer")
		}
		if err != nil {
			return fmt.Errorf("lifecycle %d: %s: %w", p, ev, err)
		}
	}
	return nil
}

func measureLifecycles(o *options, rt runtimeUnderTest, res *eventsResult) ([]int64, measurement, error) {
	ctx := context.Background()
	res.Ops, res.Warmup = o.lifecycles, o.lifecycleWarmup
	for p := 0; p < o.lifecycleWarmup; p++ {
		if err := runLifecycle(ctx, rt, p, o.plugins); err != nil {
			return nil, measurement{}, err
		}
	}
	lat := make([]int64, o.lifecycles)
	m := startMeasurement()
	for i := range lat {
		t := time.Now()
		err := runLifecycle(ctx, rt, o.lifecycleWarmup+i, o.plugins)
		lat[i] = int64(time.Since(t))
		if err != nil {
			return nil, measurement{}, err
		}
	}
	m.end()
	return lat, m, nil
}

// measureThroughput has each caller run its pod and warm up, then all of
// them create their containers at once.
func measureThroughput(o *options, rt runtimeUnderTest, res *eventsResult) ([]int64, measurement, error) {
	ctx := context.Background()
	warm, per := perCaller(o.warmup, o.callers), perCaller(o.throughputEvents, o.callers)
	res.Callers, res.Ops, res.Warmup = o.callers, per*o.callers, warm*o.callers
	lats := make([][]int64, o.callers)
	errs := make([]error, o.callers)
	var warmed, done sync.WaitGroup
	start := make(chan struct{})
	for c := 0; c < o.callers; c++ {
		warmed.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			errs[c] = func() error {
				defer warmed.Done()
				if _, err := rt.do(ctx, evRunPod, c, 0); err != nil {
					return fmt.Errorf("caller %d: RunPodSandbox: %w", c, err)
				}
				for i := 0; i < warm; i++ {
					n, err := rt.do(ctx, evCreate, c, i)
					if err == nil {
						err = checkCreate(n, o.plugins, "warm-up CreateContainer")
					}
					if err != nil {
						return fmt.Errorf("caller %d: %w", c, err)
					}
				}
				return nil
			}()
			if errs[c] != nil {
				return
			}
			<-start
			lat := make([]int64, per)
			for i := range lat {
				t := time.Now()
				n, err := rt.do(ctx, evCreate, c, warm+i)
				lat[i] = int64(time.Since(t))
				if err == nil {
					err = checkCreate(n, o.plugins, "CreateContainer")
				}
				if err != nil {
					errs[c] = fmt.Errorf("caller %d: CreateContainer %d: %w", c, i, err)
					return
				}
			}
			lats[c] = lat
		}()
	}
	warmed.Wait()
	m := startMeasurement()
	close(start)
	done.Wait()
	m.end()
	for _, err := range errs {
		if err != nil {
			return nil, measurement{}, err
		}
	}
	return slices.Concat(lats...), m, nil
}
