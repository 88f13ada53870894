// SPDX-License-Identifier: Apache-2.0

package status

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
)

func TestCountersSnapshot(t *testing.T) {
	var c Counters
	joined := time.Now()
	c.Joined(joined)
	c.Record(api.Event_CREATE_CONTAINER, nri.OutcomeOK, time.Millisecond)
	c.Record(api.Event_CREATE_CONTAINER, nri.OutcomeOK, 3*time.Millisecond)
	c.Record(api.Event_CREATE_CONTAINER, nri.OutcomeTimeout, 2*time.Second)
	c.Failed(api.Event_CREATE_CONTAINER, nri.OutcomeTimeout, errors.New("too slow"))
	c.Skipped(api.Event_CREATE_CONTAINER)
	c.Skipped(api.Event_RUN_POD_SANDBOX)                        // only missed: listed with total 0
	c.Record(api.Event_LAST, nri.OutcomeOK, time.Second)        // not an event: ignored
	c.Record(api.Event(0), nri.OutcomeOK, time.Second)          // nor this
	c.Record(api.Event_STOP_CONTAINER, "unknown", -time.Second) // an unknown outcome is an error; no negative latency

	pc := c.Snapshot()
	if !pc.JoinedAt.Equal(joined) {
		t.Errorf("joined at %v, want %v", pc.JoinedAt, joined)
	}
	if last := pc.LastError; last == nil || last.Event != "CreateContainer" || last.Outcome != nri.OutcomeTimeout || last.Error != "too slow" {
		t.Errorf("last error %+v, want CreateContainer's timeout", last)
	}
	var events []string
	for _, ec := range pc.Calls {
		events = append(events, ec.Event)
	}
	if got, want := strings.Join(events, ","), "RunPodSandbox,CreateContainer,StopContainer"; got != want {
		t.Fatalf("events %s, want %s (in event order)", got, want)
	}
	run, create, stop := pc.Calls[0], pc.Calls[1], pc.Calls[2]
	if run.Total != 0 || run.NotCalled != 1 || len(run.Outcomes) != 0 {
		t.Errorf("RunPodSandbox %+v, want only one not called", run)
	}
	if create.Total != 3 || create.NotCalled != 1 || create.Outcomes[nri.OutcomeOK] != 2 || create.Outcomes[nri.OutcomeTimeout] != 1 || len(create.Outcomes) != 2 {
		t.Errorf("CreateContainer %+v, want 2 ok, 1 timeout, 1 not called", create)
	}
	if create.Latency.Sum != 2*time.Second+4*time.Millisecond || create.Latency.Max != 2*time.Second {
		t.Errorf("CreateContainer's latency sum %v, max %v", create.Latency.Sum, create.Latency.Max)
	}
	if stop.Total != 1 || stop.Outcomes[nri.OutcomeError] != 1 || stop.Latency.Sum != 0 || stop.Latency.Buckets[0].Count != 1 {
		t.Errorf("StopContainer %+v, want one error of no latency", stop)
	}
	for _, ec := range pc.Calls {
		var inBuckets, byOutcome uint64
		for _, b := range ec.Latency.Buckets {
			inBuckets += b.Count
		}
		for _, n := range ec.Outcomes {
			byOutcome += n
		}
		if inBuckets != ec.Total || byOutcome != ec.Total {
			t.Errorf("%s: total %d, buckets %d, outcomes %d; want them equal", ec.Event, ec.Total, inBuckets, byOutcome)
		}
	}
}

// A snapshot shares nothing with the counters: what a caller does with it
// changes no later snapshot.
func TestCountersSnapshotIsACopy(t *testing.T) {
	var c Counters
	c.Record(api.Event_CREATE_CONTAINER, nri.OutcomeError, time.Millisecond)
	c.Failed(api.Event_CREATE_CONTAINER, nri.OutcomeError, errors.New("no"))
	pc := c.Snapshot()
	pc.LastError.Error = "changed"
	pc.Calls[0].Outcomes[nri.OutcomeOK] = 7
	pc.Calls[0].Latency.Buckets[0].Count = 7
	again := c.Snapshot()
	if again.LastError.Error != "no" || again.Calls[0].Outcomes[nri.OutcomeOK] != 0 || again.Calls[0].Latency.Buckets[0].Count != 0 {
		t.Errorf("a change to a snapshot reached the counters: %+v", again)
	}
}

func TestCountersNoCalls(t *testing.T) {
	var c Counters
	pc := c.Snapshot()
	if pc.Calls == nil || len(pc.Calls) != 0 || pc.LastError != nil || !pc.JoinedAt.IsZero() {
		t.Errorf("fresh counters %+v, want no calls (an empty list), no error, not joined", pc)
	}
}

// Counting a call is on the event path: it must not allocate.
func TestCountingAllocatesNothing(t *testing.T) {
	var c Counters
	if n := testing.AllocsPerRun(100, func() {
		c.Record(api.Event_CREATE_CONTAINER, nri.OutcomeCanceled, 3*time.Millisecond)
		c.Skipped(api.Event_CREATE_CONTAINER)
	}); n != 0 {
		t.Errorf("counting a call allocates %v times, want none", n)
	}
}

// Each call is counted in the first bucket whose bound is at least its
// latency.
func TestLatencyBuckets(t *testing.T) {
	labels := []string{"500µs", "1ms", "2.5ms", "5ms", "10ms", "25ms", "50ms", "100ms", "250ms", "500ms", "1s", "2.5s", "5s", "10s", "30s", "+Inf"}
	if numLatencyBuckets != len(labels) {
		t.Fatalf("%d buckets, want %d", numLatencyBuckets, len(labels))
	}
	for i, want := range labels {
		if got := bucketLabel(i); got != want {
			t.Errorf("bucket %d is labelled %q, want %q", i, got, want)
		}
	}
	for _, tc := range []struct {
		took   time.Duration
		bucket string
	}{
		{0, "500µs"},
		{500 * time.Microsecond, "500µs"},
		{500*time.Microsecond + 1, "1ms"},
		{time.Millisecond, "1ms"},
		{2 * time.Millisecond, "2.5ms"},
		{time.Second, "1s"},
		{30 * time.Second, "30s"},
		{30*time.Second + 1, "+Inf"},
		{time.Hour, "+Inf"},
	} {
		var c Counters
		c.Record(api.Event_CREATE_CONTAINER, nri.OutcomeOK, tc.took)
		for _, b := range c.Snapshot().Calls[0].Latency.Buckets {
			want := uint64(0)
			if b.UpperBound == tc.bucket {
				want = 1
			}
			if b.Count != want {
				t.Errorf("a call of %v: bucket %s counts %d, want %d", tc.took, b.UpperBound, b.Count, want)
			}
		}
	}
}

// The last error's text is cut to 512 bytes, at a character boundary, and
// what could garble a terminal is escaped.
func TestLastErrorText(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"plain", `quoted "name" and \ stay`, `quoted "name" and \ stay`},
		{"control", "line\nnext\x1b[31m\u200b\xff", `line\nnext\x1b[31m\u200b\xff`},
		{"long", strings.Repeat("a", 600), strings.Repeat("a", 512) + " [cut]"},
		{"exact", strings.Repeat("a", 512), strings.Repeat("a", 512)},
		{"escape at the cut", strings.Repeat("a", 511) + "\n", strings.Repeat("a", 511) + " [cut]"},
		{"rune at the cut", strings.Repeat("a", 511) + "é", strings.Repeat("a", 511) + " [cut]"},
	} {
		var c Counters
		c.Failed(api.Event_CREATE_CONTAINER, nri.OutcomeError, errors.New(tc.text))
		got := c.Snapshot().LastError.Error
		if got != tc.want {
			t.Errorf("%s: error text %q, want %q", tc.name, got, tc.want)
		}
		if body := strings.TrimSuffix(got, " [cut]"); len(body) > maxLastErrorText {
			t.Errorf("%s: %d bytes kept, want at most %d", tc.name, len(body), maxLastErrorText)
		}
	}
}
