// SPDX-License-Identifier: Apache-2.0

// The counters of one plugin instance: calls by event and outcome, latency histograms, last error.

package status

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
)

const (
	numOutcomes = len(nri.Outcomes)
	numEvents   = int(api.Event_LAST)
	// maxLastErrorText bounds the text of a plugin's last error in Status.
	maxLastErrorText = 512
)

func outcomeIndex(o nri.Outcome) int {
	for i, x := range nri.Outcomes {
		if x == o {
			return i
		}
	}
	return 1 // an outcome this table does not know counts as an error
}

// Counters counts one plugin instance's calls. Its arrays are allocated
// with the counters, so that counting a call allocates nothing. One mutex
// guards them: a plugin handles one call at a time, so it is hardly ever
// contended, and a snapshot sees every event's counts, histogram and
// maximum agree. The zero value is ready.
type Counters struct {
	mu       sync.Mutex
	joinedAt time.Time
	calls    [numEvents][numOutcomes]uint64
	buckets  [numEvents][numLatencyBuckets]uint64
	total    [numEvents]time.Duration
	max      [numEvents]time.Duration
	// notCalled counts the calls the event's deadline left unmade: in no
	// outcome and no bucket, which count the calls made.
	notCalled [numEvents]uint64
	lastErr   *LastError
}

// PluginCalls is a snapshot of one plugin instance's Counters.
type PluginCalls struct {
	JoinedAt time.Time // when it joined; zero until then
	// LastError is its last failed call, nil if none failed.
	LastError *LastError
	// Calls are its calls per event, in event order; events it was never
	// called for (nor left uncalled) are left out. Never nil.
	Calls []EventCalls
}

// LastError is a plugin's last failed call.
type LastError = nri.CallError

// EventCalls counts one plugin's calls of one event. Total, Outcomes and
// Latency count the calls made; NotCalled counts apart the calls the
// event's deadline left unmade.
type EventCalls struct {
	Event string // as api.Event.Name() names it
	Total uint64
	// Outcomes counts the calls by outcome; outcomes that did not occur
	// are left out. Never nil.
	Outcomes  map[nri.Outcome]uint64
	Latency   Histogram
	NotCalled uint64
}

// Record counts one call of ev that ended with o after took.
func (s *Counters) Record(ev api.Event, o nri.Outcome, took time.Duration) {
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

// Skipped counts a call of ev that the event's deadline left unmade.
func (s *Counters) Skipped(ev api.Event) {
	e := int(ev)
	if e <= 0 || e >= numEvents {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notCalled[e]++
}

// Failed keeps err as the plugin's last error. Only failed calls pay for the
// text.
func (s *Counters) Failed(ev api.Event, o nri.Outcome, err error) {
	last := &LastError{Event: ev.Name(), Outcome: o, Error: safeErrorText(err.Error()), Time: time.Now()}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastErr = last
}

// LastError is a copy of the plugin's last failed call; nil if none
// failed.
func (s *Counters) LastError() *LastError {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastErr == nil {
		return nil
	}
	last := *s.lastErr
	return &last
}

// Joined keeps t as when the plugin joined.
func (s *Counters) Joined(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.joinedAt = t
}

// Snapshot returns the counters, in event order, listing only the events
// the plugin was called for or left uncalled.
func (s *Counters) Snapshot() PluginCalls {
	s.mu.Lock()
	defer s.mu.Unlock()
	pc := PluginCalls{JoinedAt: s.joinedAt, Calls: []EventCalls{}}
	if s.lastErr != nil {
		last := *s.lastErr
		pc.LastError = &last
	}
	for e := 1; e < numEvents; e++ {
		var n uint64
		for _, c := range s.calls[e] {
			n += c
		}
		if n == 0 && s.notCalled[e] == 0 {
			continue
		}
		pc.Calls = append(pc.Calls, s.eventCalls(api.Event(e), n))
	}
	return pc
}

func (s *Counters) eventCalls(ev api.Event, n uint64) EventCalls {
	e := int(ev)
	ec := EventCalls{Event: ev.Name(), Total: n, NotCalled: s.notCalled[e], Outcomes: map[nri.Outcome]uint64{}}
	for i, c := range s.calls[e] {
		if c > 0 {
			ec.Outcomes[nri.Outcomes[i]] = c
		}
	}
	ec.Latency = Histogram{Sum: s.total[e], Max: s.max[e], Buckets: make([]Bucket, numLatencyBuckets)}
	for i, c := range s.buckets[e] {
		ec.Latency.Buckets[i] = Bucket{UpperBound: bucketLabel(i), Count: c}
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
