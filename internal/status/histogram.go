// SPDX-License-Identifier: Apache-2.0

// The fixed latency buckets of Status's per-event histograms.

package status

import (
	"time"
)

// latencyBounds are the upper bounds of the latency histogram's buckets in
// Status, from sub-millisecond to beyond the longest timeout; a last
// bucket ("+Inf") takes what is longer. They are fixed, so that histograms
// of different runtimes, plugins and releases add up.
var latencyBounds = [...]time.Duration{
	500 * time.Microsecond,
	time.Millisecond,
	2500 * time.Microsecond,
	5 * time.Millisecond,
	10 * time.Millisecond,
	25 * time.Millisecond,
	50 * time.Millisecond,
	100 * time.Millisecond,
	250 * time.Millisecond,
	500 * time.Millisecond,
	time.Second,
	2500 * time.Millisecond,
	5 * time.Second,
	10 * time.Second,
	30 * time.Second,
}

// Histogram is the latency of one plugin's calls of one event, from the
// call's start (waiting for the plugin's earlier call included) to its end,
// whatever the outcome.
type Histogram struct {
	// Buckets are on the fixed bounds of latencyBounds, then +Inf. Each call
	// is counted in the first bucket whose bound is at least its latency, so
	// the counts (not cumulative) add up to the calls' total.
	Buckets  []Bucket
	Sum, Max time.Duration
}

// Bucket is one bucket of a Histogram.
type Bucket struct {
	UpperBound string // "500µs", ..., "30s", "+Inf"
	Count      uint64
}

// numLatencyBuckets counts the bounded buckets and the last, unbounded one.
const numLatencyBuckets = len(latencyBounds) + 1

// latencyBucket is the index of the bucket d falls in: the first whose
// bound is at least d.
func latencyBucket(d time.Duration) int {
	for i, b := range latencyBounds {
		if d <= b {
			return i
		}
	}
	return len(latencyBounds)
}

// bucketLabel names a bucket by its upper bound, as Prometheus's "le" label
// does: "500µs", "1ms", ..., "30s", "+Inf".
func bucketLabel(i int) string {
	if i == len(latencyBounds) {
		return "+Inf"
	}
	return latencyBounds[i].String()
}
