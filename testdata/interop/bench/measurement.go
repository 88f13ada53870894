// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"syscall"
	"time"
)

// pluginPIDs are the plugin processes whose I/O a measurement counts.
var pluginPIDs []int

// pluginIO is the bytes the plugin processes have read and written so far.
func pluginIO() (read, written int64) {
	for _, pid := range pluginPIDs {
		r, w := procIO(pid)
		read, written = read+r, written+w
	}
	return read, written
}

func procIO(pid int) (read, written int64) {
	path := fmt.Sprintf("/proc/%d/io", pid)
	fmt.Sscan(procField(path, "rchar"), &read)
	fmt.Sscan(procField(path, "wchar"), &written)
	return read, written
}

// profileTo receives the CPU profile of the measured part, with -cpuprofile.
var profileTo *os.File

// measurement is the wall time, CPU time and allocations of a measured part.
type measurement struct {
	start         time.Time
	wall          time.Duration
	user0, sys0   int64
	user, sys     int64
	calls0, calls int64 // plugin calls
	read0, read   int64 // plugins' I/O
	wrote0, wrote int64
	ms0, ms1      runtime.MemStats
}

func startMeasurement() measurement {
	runtime.GC()
	var m measurement
	runtime.ReadMemStats(&m.ms0)
	m.user0, m.sys0 = cpuTimes()
	m.calls0 = pluginCalls.Load()
	m.read0, m.wrote0 = pluginIO()
	if profileTo != nil {
		_ = pprof.StartCPUProfile(profileTo)
	}
	m.start = time.Now()
	return m
}

func (m *measurement) end() {
	m.wall = time.Since(m.start)
	u, s := cpuTimes()
	if profileTo != nil {
		pprof.StopCPUProfile()
	}
	m.user, m.sys = u-m.user0, s-m.sys0
	m.calls = pluginCalls.Load() - m.calls0
	r, w := pluginIO()
	m.read, m.wrote = r-m.read0, w-m.wrote0
	runtime.ReadMemStats(&m.ms1)
}

func (m *measurement) fill(res *eventsResult, lat []int64) {
	n := float64(len(lat))
	slices.Sort(lat)
	res.P50Ns = lat[len(lat)/2]
	res.P99Ns = lat[min(len(lat)-1, len(lat)*99/100)]
	res.MaxNs = lat[len(lat)-1]
	if res.Workload == wlThroughput {
		var sum int64
		for _, l := range lat {
			sum += l
		}
		res.MeanNs = sum / int64(len(lat))
	} else {
		res.MeanNs = int64(m.wall) / int64(len(lat))
	}
	res.ElapsedNs = int64(m.wall)
	res.OpsPerSec = n / m.wall.Seconds()
	res.UserNs, res.SysNs = m.user, m.sys
	res.CPUNsPerOp = float64(m.user+m.sys) / n
	res.AllocsPerOp = float64(m.ms1.Mallocs-m.ms0.Mallocs) / n
	res.BytesPerOp = float64(m.ms1.TotalAlloc-m.ms0.TotalAlloc) / n
	res.NumGC = m.ms1.NumGC - m.ms0.NumGC
	res.RPCsPerOp = float64(m.calls) / n
	res.PluginReadPerOp, res.PluginWritePerOp = float64(m.read)/n, float64(m.wrote)/n
}

// cpuTimes is this process's user and system CPU time so far, in ns. The
// bench module is Linux-only (it also relies on Pdeathsig).
func cpuTimes() (user, sys int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return ru.Utime.Nano(), ru.Stime.Nano()
}
