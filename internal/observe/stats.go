// SPDX-License-Identifier: Apache-2.0

// Stats: what Status shows of an observer's queue.

package observe

import "time"

// Stats is a snapshot of a queue.
type Stats struct {
	// Length counts the calls not delivered yet: waiting, and the one in
	// delivery.
	Length int
	// Bytes is the encoded size of the bounded calls waiting.
	Bytes int
	// Delivered counts the calls made, whatever their outcome.
	Delivered uint64
	// Lag is how long the oldest call not delivered yet has been queued; 0
	// when none is.
	Lag time.Duration
	// LastLag is how long the last call delivered waited in the queue,
	// from being queued to its delivery's start.
	LastLag time.Duration
	// Closed: the queue takes no more calls (its observer is going).
	Closed bool
}

// Stats returns a snapshot of the queue.
func (q *Queue) Stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := Stats{Length: q.behindLocked(), Bytes: q.bytes, Delivered: q.delivered, LastLag: q.lastLag, Closed: q.closed}
	switch {
	case q.delivering != nil:
		s.Lag = time.Since(q.delivering.queued)
	case len(q.items) > 0:
		s.Lag = time.Since(q.items[0].queued)
	}
	return s
}
