// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"slices"
)

// median of the values of f over rs (the upper one of an even count).
func median[R any, T int64 | uint64 | uint32 | int | float64](rs []R, f func(R) T) T {
	vs := make([]T, len(rs))
	for i, r := range rs {
		vs[i] = f(r)
	}
	slices.Sort(vs)
	return vs[len(vs)/2]
}

// medianSync summarizes runs of one runtime: each number is its own median.
func medianSync(rs []*syncResult) *syncResult {
	m := *rs[0]
	ok := 0
	for _, r := range rs {
		if r.Outcome == "synchronized" {
			ok++
		}
	}
	if ok != len(rs) {
		m.Outcome = fmt.Sprintf("synchronized in %d of %d runs", ok, len(rs))
	}
	m.WallNs = median(rs, func(r *syncResult) int64 { return r.WallNs })
	m.SyncNs = median(rs, func(r *syncResult) int64 { return r.SyncNs })
	m.HeapBaseBytes = median(rs, func(r *syncResult) uint64 { return r.HeapBaseBytes })
	m.HeapPeakBytes = median(rs, func(r *syncResult) uint64 { return r.HeapPeakBytes })
	m.AllocBytes = median(rs, func(r *syncResult) uint64 { return r.AllocBytes })
	m.NumGC = median(rs, func(r *syncResult) uint32 { return r.NumGC })
	m.PeakOverBaseBytes = median(rs, func(r *syncResult) uint64 { return r.overBase() })
	m.RSSBaseBytes = median(rs, func(r *syncResult) uint64 { return r.RSSBaseBytes })
	m.RSSPeakBytes = median(rs, func(r *syncResult) uint64 { return r.RSSPeakBytes })
	return &m
}

// medianEvents summarizes runs of one runtime on one workload: each number
// is its own median.
func medianEvents(rs []*eventsResult) *eventsResult {
	if len(rs) == 0 {
		return nil
	}
	m := *rs[0]
	m.P50Ns = median(rs, func(r *eventsResult) int64 { return r.P50Ns })
	m.P99Ns = median(rs, func(r *eventsResult) int64 { return r.P99Ns })
	m.MeanNs = median(rs, func(r *eventsResult) int64 { return r.MeanNs })
	m.MaxNs = median(rs, func(r *eventsResult) int64 { return r.MaxNs })
	m.OpsPerSec = median(rs, func(r *eventsResult) float64 { return r.OpsPerSec })
	m.ElapsedNs = median(rs, func(r *eventsResult) int64 { return r.ElapsedNs })
	m.CPUNsPerOp = median(rs, func(r *eventsResult) float64 { return r.CPUNsPerOp })
	m.UserNs = median(rs, func(r *eventsResult) int64 { return r.UserNs })
	m.SysNs = median(rs, func(r *eventsResult) int64 { return r.SysNs })
	m.AllocsPerOp = median(rs, func(r *eventsResult) float64 { return r.AllocsPerOp })
	m.BytesPerOp = median(rs, func(r *eventsResult) float64 { return r.BytesPerOp })
	m.NumGC = median(rs, func(r *eventsResult) uint32 { return r.NumGC })
	m.RPCsPerOp = median(rs, func(r *eventsResult) float64 { return r.RPCsPerOp })
	m.PluginReadPerOp = median(rs, func(r *eventsResult) float64 { return r.PluginReadPerOp })
	m.PluginWritePerOp = median(rs, func(r *eventsResult) float64 { return r.PluginWritePerOp })
	return &m
}
