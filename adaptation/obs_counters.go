// SPDX-License-Identifier: Apache-2.0

// The counters of one plugin instance: calls by event and outcome, latency histograms, last error.

package adaptation

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/nrikit/nrikit/api"
)

// outcomes lists the call outcomes in the order Status counts them.
var outcomes = [...]Outcome{OutcomeOK, OutcomeError, OutcomeTimeout, OutcomeLost, OutcomeCanceled, OutcomeRejected}

const (
	numOutcomes = len(outcomes)
	numEvents   = int(api.Event_LAST)
	// maxLastErrorText bounds the text of a plugin's last error in Status.
	maxLastErrorText = 512
)

func outcomeIndex(o Outcome) int {
	for i, x := range outcomes {
		if x == o {
			return i
		}
	}
	return 1 // an outcome this table does not know counts as an error
}

// pluginStats counts one plugin instance's calls. Its arrays are allocated
// with the plugin, so that counting a call allocates nothing. One mutex
// guards them: a plugin handles one call at a time, so it is hardly ever
// contended, and a snapshot sees every event's counts, histogram and
// maximum agree.
type pluginStats struct {
	mu       sync.Mutex
	joinedAt time.Time
	calls    [numEvents][numOutcomes]uint64
	buckets  [numEvents][numLatencyBuckets]uint64
	total    [numEvents]time.Duration
	max      [numEvents]time.Duration
	// notCalled counts the calls the event's deadline left unmade: in no
	// outcome and no bucket, which count the calls made.
	notCalled [numEvents]uint64
	lastErr   *PluginLastError
}

// record counts one call of ev that ended with o after took.
func (s *pluginStats) record(ev api.Event, o Outcome, took time.Duration) {
	e := int(ev)
	if e <= 0 || e >= numEvents {
		return
	}
	if took < 0 {
		took = 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[e][outcomeIndex(o)]++
	s.buckets[e][latencyBucket(took)]++
	s.total[e] += took
	s.max[e] = max(s.max[e], took)
}

// skipped counts a call of ev that the event's deadline left unmade.
func (s *pluginStats) skipped(ev api.Event) {
	e := int(ev)
	if e <= 0 || e >= numEvents {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notCalled[e]++
}

// failed keeps err as the plugin's last error. Only failed calls pay for the
// text.
func (s *pluginStats) failed(ev api.Event, o Outcome, err error) {
	last := &PluginLastError{Event: ev.Name(), Outcome: o, Error: safeErrorText(err.Error()), Time: time.Now()}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastErr = last
}

func (s *pluginStats) joined(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.joinedAt = t
}

// snapshot fills in st's counters, in event order, listing only the events
// the plugin was called for.
func (s *pluginStats) snapshot(st *PluginStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st.JoinedAt = s.joinedAt
	if s.lastErr != nil {
		last := *s.lastErr
		st.LastError = &last
	}
	st.Calls = []EventCalls{}
	for e := 1; e < numEvents; e++ {
		var n uint64
		for _, c := range s.calls[e] {
			n += c
		}
		if n == 0 && s.notCalled[e] == 0 {
			continue
		}
		st.Calls = append(st.Calls, s.eventCalls(api.Event(e), n))
	}
}

func (s *pluginStats) eventCalls(ev api.Event, n uint64) EventCalls {
	e := int(ev)
	ec := EventCalls{Event: ev.Name(), Total: n, NotCalled: s.notCalled[e], Outcomes: map[Outcome]uint64{}}
	for i, c := range s.calls[e] {
		if c > 0 {
			ec.Outcomes[outcomes[i]] = c
		}
	}
	ec.Latency = LatencyHistogram{Sum: Duration(s.total[e]), Max: Duration(s.max[e]), Buckets: make([]LatencyBucket, numLatencyBuckets)}
	for i, c := range s.buckets[e] {
		ec.Latency.Buckets[i] = LatencyBucket{UpperBound: bucketLabel(i), Count: c}
	}
	return ec
}

// safeErrorText cuts text to maxLastErrorText bytes, at a character boundary,
// and escapes what could garble a terminal or a log line: control and
// other non-printable characters become Go escapes (`\n`, `\x1b`,
// `\u200b`), and invalid UTF-8 `\xff`. Quotes and backslashes stay as they
// are; JSON encoding escapes them.
func safeErrorText(text string) string {
	var b strings.Builder
	cut := false
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		var piece string
		switch {
		case r == utf8.RuneError && size == 1:
			piece = fmt.Sprintf(`\x%02x`, text[i])
		case strconv.IsPrint(r):
			piece = text[i : i+size]
		default:
			q := strconv.QuoteRune(r)
			piece = q[1 : len(q)-1]
		}
		if b.Len()+len(piece) > maxLastErrorText {
			cut = true
			break
		}
		b.WriteString(piece)
		i += size
	}
	if cut {
		return b.String() + " [cut]"
	}
	return b.String()
}
