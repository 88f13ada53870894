// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/nrikit/nrikit/internal/fakenode"
)

// syncResult is one big-node synchronization run of one runtime.
type syncResult struct {
	Impl           string `json:"impl"`
	Timeouts       string `json:"timeouts"` // "default" or "raised"
	TimeoutSetting string `json:"timeout_setting"`
	Pods           int    `json:"pods"`
	Containers     int    `json:"containers"`
	StateBytes     int    `json:"state_bytes"` // encoded, as this runtime holds it
	Outcome        string `json:"outcome"`     // synchronized | dropped | plugin exited | timed out
	Reason         string `json:"reason,omitempty"`
	WallNs         int64  `json:"wall_ns"` // plugin start -> outcome
	SyncNs         int64  `json:"sync_ns"` // SyncFn called -> sync callback returned
	PluginStatus   string `json:"plugin_status"`
	PluginStderr   string `json:"plugin_stderr,omitempty"`
	GCPercent      int    `json:"gc_percent"`
	HeapBaseBytes  uint64 `json:"heap_base_bytes"` // live heap before the plugin starts (state included)
	HeapPeakBytes  uint64 `json:"heap_peak_bytes"` // peak of heap objects during the measured part
	// PeakOverBaseBytes is peak - base (in a median, the median of the differences).
	PeakOverBaseBytes uint64 `json:"peak_over_base_bytes"`
	// The runtime process's resident set (/proc/self/status) before the
	// measured part and its peak during it (VmHWM, reset at its start
	// through /proc/self/clear_refs); 0 where that is not available.
	RSSBaseBytes uint64   `json:"rss_base_bytes"`
	RSSPeakBytes uint64   `json:"rss_peak_bytes"`
	AllocBytes   uint64   `json:"alloc_bytes"` // TotalAlloc delta over the measured part
	NumGC        uint32   `json:"num_gc"`      // collections during the measured part
	RuntimeLog   []string `json:"runtime_log,omitempty"`
}

// syncEvents collects what the runtime reports through the hooks.
type syncEvents struct {
	mu        sync.Mutex
	syncStart time.Time
	syncEnd   time.Time
	syncErr   error
	synced    chan struct{} // closed when the plugin count reaches 1
	failed    chan struct{} // closed when the sync callback fails
	once      sync.Once
	failOnce  sync.Once
}

func (e *syncEvents) hooks() hooks {
	return hooks{
		syncStart: func() {
			e.mu.Lock()
			e.syncStart = time.Now()
			e.mu.Unlock()
		},
		syncDone: func(err error) {
			e.mu.Lock()
			e.syncEnd, e.syncErr = time.Now(), err
			e.mu.Unlock()
			if err != nil {
				e.failOnce.Do(func() { close(e.failed) })
			}
		},
		count: func(n int) {
			if n >= 1 {
				e.once.Do(func() { close(e.synced) })
			}
		},
	}
}

func runSync(o *options) (*syncResult, error) {
	res := &syncResult{Impl: o.impl, Timeouts: o.timeouts, GCPercent: o.gogc}
	if o.impl != implRef && o.impl != implOurs {
		return nil, fmt.Errorf("sync: no %s implementation", o.impl)
	}
	progress("sync %s/%s: generating %d pods x %d containers", o.impl, o.timeouts, o.pods, o.perPod)
	pods, ctrs := fakenode.Node(o.pods, o.perPod)
	res.Pods, res.Containers = len(pods), len(ctrs)

	dir, err := tempDir()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	ev := &syncEvents{synced: make(chan struct{}), failed: make(chan struct{})}
	logs := &logCapture{}
	cfg := &rtConfig{dir: dir, pods: pods, ctrs: ctrs, hooks: ev.hooks(), log: logs}
	switch o.timeouts {
	case "default":
		if o.impl == implRef {
			res.TimeoutSetting = "request 2s (whole sync exchange)"
		} else {
			res.TimeoutSetting = "request 2s, sync 10s per message"
		}
	case "raised":
		cfg.timeout = o.raised
		if o.impl == implRef {
			res.TimeoutSetting = fmt.Sprintf("request %v", o.raised)
		} else {
			res.TimeoutSetting = fmt.Sprintf("request %v, sync %v", o.raised, o.raised)
		}
	default:
		return nil, fmt.Errorf("unknown timeouts %q", o.timeouts)
	}
	rt, err := newRuntime(o.impl, cfg)
	if err != nil {
		return nil, err
	}
	stop := sync.OnceFunc(rt.stop)
	defer stop()
	res.StateBytes = rt.stateBytes()
	// Only the runtime holds the state from here on (the reference holds its
	// converted copy).
	pods, ctrs, cfg.pods, cfg.ctrs = nil, nil, nil, nil

	runtime.GC()
	runtime.GC()
	debug.FreeOSMemory()
	res.HeapBaseBytes = heapObjects()
	res.RSSBaseBytes = resetPeakRSS()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	progress("sync %s/%s: state %.1f MB encoded, live heap %.0f MiB; starting plugin", o.impl, o.timeouts,
		float64(res.StateBytes)/1e6, mib(res.HeapBaseBytes))

	// ---- measured part ----
	oldGC := debug.SetGCPercent(o.gogc)
	peak := sampleHeap()
	start := time.Now()
	plugin, err := startPlugin(o.plugin, cfg.socket(), "10", "big", "RunPodSandbox")
	if err != nil {
		debug.SetGCPercent(oldGC)
		peak()
		return nil, err
	}
	deadline := time.NewTimer(o.childTimeout)
	defer deadline.Stop()
	select {
	case <-ev.synced:
		res.Outcome = "synchronized"
	case <-ev.failed:
		res.Outcome = "dropped"
	case <-plugin.exited:
		res.Outcome = "plugin exited"
	case <-deadline.C:
		res.Outcome = "timed out"
	}
	res.WallNs = int64(time.Since(start))
	res.HeapPeakBytes = peak()
	res.RSSPeakBytes = statusBytes("VmHWM")
	runtime.ReadMemStats(&ms1)
	debug.SetGCPercent(oldGC)
	// ---- end of measured part ----

	res.PeakOverBaseBytes = res.overBase()
	res.AllocBytes = ms1.TotalAlloc - ms0.TotalAlloc
	res.NumGC = ms1.NumGC - ms0.NumGC
	ev.mu.Lock()
	if !ev.syncStart.IsZero() && !ev.syncEnd.IsZero() {
		res.SyncNs = int64(ev.syncEnd.Sub(ev.syncStart))
	}
	if ev.syncErr != nil {
		res.Reason = ev.syncErr.Error()
	}
	ev.mu.Unlock()
	progress("sync %s/%s: %s after %v", o.impl, o.timeouts, res.Outcome, time.Duration(res.WallNs).Round(time.Millisecond))

	if res.Outcome == "synchronized" {
		stop()
		// The reference's Stop leaves external plugins connected.
		if plugin.waitExit(stopGrace) {
			res.PluginStatus = plugin.status() + " after runtime Stop"
		} else {
			res.PluginStatus = fmt.Sprintf("still connected %v after runtime Stop (killed)", stopGrace)
		}
	} else {
		// A dropped plugin must see its connection closed and exit.
		if plugin.waitExit(30 * time.Second) {
			res.PluginStatus = plugin.status() + " after the drop"
		} else {
			res.PluginStatus = "still connected 30s after the drop (killed)"
		}
	}
	if res.Outcome != "synchronized" {
		res.PluginStderr = plugin.stderr.String()
	}
	res.RuntimeLog = logs.get()
	return res, nil
}

func (r *syncResult) overBase() uint64 {
	return r.HeapPeakBytes - min(r.HeapPeakBytes, r.HeapBaseBytes)
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "# "+format+"\n", args...)
}

// rssGrowth is what the synchronization added to the resident set at its
// peak: the runtime's own state, held before, is the same for both.
func (r *syncResult) rssGrowth() uint64 {
	if r.RSSPeakBytes < r.RSSBaseBytes {
		return 0
	}
	return r.RSSPeakBytes - r.RSSBaseBytes
}

// resetPeakRSS resets the process's peak resident set size to its current
// one and returns it; 0 if the kernel does not allow that.
func resetPeakRSS() uint64 {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return 0
	}
	return statusBytes("VmRSS")
}

// statusBytes reads a "kB" field of /proc/self/status, in bytes.
func statusBytes(key string) uint64 {
	var kb uint64
	if _, err := fmt.Sscanf(procField("/proc/self/status", key), "%d kB", &kb); err != nil {
		return 0
	}
	return kb << 10
}
