// SPDX-License-Identifier: Apache-2.0

// Package ratelog bounds the log lines that one source (a peer, a plugin, a
// kind of refusal) can cause, and says how many it held back.
package ratelog

import (
	"sync"
	"time"

	"github.com/sirupsen/logrus"
)

// Limiter bounds the log lines one peer can cause: at most burst lines per
// window, counting those it holds back so that the next line allowed, or a
// last Flush, can say how many there were.
type Limiter struct {
	mu         sync.Mutex
	burst      int
	window     time.Duration
	now        func() time.Time
	start      time.Time // of the current window
	used       int       // lines allowed in it
	suppressed int       // lines held back since the last one allowed
}

// New allows burst lines per window.
func New(burst int, window time.Duration) *Limiter {
	return &Limiter{burst: burst, window: window, now: time.Now}
}

// Allow reports whether a line may be logged now and, when it may, how
// many were held back before it.
func (l *Limiter) Allow() (ok bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now := l.now(); now.Sub(l.start) >= l.window {
		l.start, l.used = now, 0
	}
	if l.used >= l.burst {
		l.suppressed++
		return false, 0
	}
	l.used++
	suppressed, l.suppressed = l.suppressed, 0
	return true, suppressed
}

// Flush returns how many lines were held back since the last one allowed,
// and starts counting again.
func (l *Limiter) Flush() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.suppressed
	l.suppressed = 0
	return n
}

// AllowEntry asks whether a line may be logged now; when it may, the entry
// to log it with says how many lines were held back before it.
func (l *Limiter) AllowEntry(log *logrus.Entry) (*logrus.Entry, bool) {
	ok, suppressed := l.Allow()
	if !ok {
		return nil, false
	}
	if suppressed > 0 {
		log = log.WithField("suppressed", suppressed)
	}
	return log, true
}
