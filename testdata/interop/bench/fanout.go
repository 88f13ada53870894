package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nrikit/nrikit/internal/fakenode"
)

// fanoutResult is one event fan-out run of one runtime.
type fanoutResult struct {
	Impl           string  `json:"impl"`
	Plugins        int     `json:"plugins"`
	Events         int     `json:"events"` // measured CreateContainer calls
	Warmup         int     `json:"warmup"`
	RunPodNs       int64   `json:"run_pod_ns"`
	P50Ns          int64   `json:"p50_ns"`
	P99Ns          int64   `json:"p99_ns"`
	MeanNs         int64   `json:"mean_ns"`
	MaxNs          int64   `json:"max_ns"`
	AllocsPerEvent float64 `json:"allocs_per_event"`
	BytesPerEvent  float64 `json:"bytes_per_event"`
	// Adjusted counts the measured events whose merged adjustment carried one
	// annotation from every plugin.
	Adjusted int `json:"adjusted"`
}

func runFanout(o *options) (*fanoutResult, error) {
	res := &fanoutResult{Impl: o.impl, Plugins: o.plugins, Events: o.events, Warmup: o.warmup}
	pods, ctrs := fakenode.Node(1, o.warmup+o.events)

	dir, err := tempDir()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	var count atomic.Int64
	cfg := &rtConfig{
		dir: dir, fanPod: pods[0], fanCtrs: ctrs, log: &logCapture{},
		hooks: hooks{syncStart: func() {}, syncDone: func(error) {}, count: func(n int) { count.Store(int64(n)) }},
	}
	rt, err := newRuntime(o.impl, cfg)
	if err != nil {
		return nil, err
	}
	pods, ctrs, cfg.fanPod, cfg.fanCtrs = nil, nil, nil, nil

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
		p, err := startPlugin(o.plugin, cfg.socket(), fmt.Sprint(10+i), fmt.Sprintf("fan%d", i), "all")
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

	ctx = context.Background()
	start := time.Now()
	if err := rt.runPod(ctx); err != nil {
		return nil, fmt.Errorf("RunPodSandbox: %w", err)
	}
	res.RunPodNs = int64(time.Since(start))
	for i := 0; i < o.warmup; i++ {
		if _, err := rt.create(ctx, i); err != nil {
			return nil, fmt.Errorf("warm-up CreateContainer %d: %w", i, err)
		}
	}
	progress("fanout %s: %d plugins registered, warmed up with %d events; measuring %d", o.impl, o.plugins, o.warmup, o.events)

	lat := make([]int64, o.events)
	runtime.GC()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	total := time.Now()
	for i := range lat {
		t := time.Now()
		n, err := rt.create(ctx, o.warmup+i)
		lat[i] = int64(time.Since(t))
		if err != nil {
			return nil, fmt.Errorf("CreateContainer %d: %w", i, err)
		}
		if n == o.plugins {
			res.Adjusted++
		}
	}
	elapsed := time.Since(total)
	runtime.ReadMemStats(&ms1)

	if c := count.Load(); c != int64(o.plugins) {
		return nil, fmt.Errorf("%s: %d of %d plugins left after the run (log: %q)", o.impl, c, o.plugins, cfg.log.get())
	}
	slices.Sort(lat)
	res.P50Ns = lat[len(lat)/2]
	res.P99Ns = lat[min(len(lat)-1, len(lat)*99/100)]
	res.MaxNs = lat[len(lat)-1]
	res.MeanNs = int64(elapsed) / int64(len(lat))
	res.AllocsPerEvent = float64(ms1.Mallocs-ms0.Mallocs) / float64(len(lat))
	res.BytesPerEvent = float64(ms1.TotalAlloc-ms0.TotalAlloc) / float64(len(lat))
	progress("fanout %s: p50 %v p99 %v", o.impl, time.Duration(res.P50Ns), time.Duration(res.P99Ns))
	return res, nil
}
