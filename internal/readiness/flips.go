// SPDX-License-Identifier: Apache-2.0

// The flip feed: each flip of the node-level readiness, handed to the runtime's callback one at a time.

package readiness

import (
	"errors"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/internal/panics"
)

// maxPendingFlips bounds the flips waiting for a slow callback; the oldest
// pair is let go first, so that the last flip is always delivered.
const maxPendingFlips = 64

// flipFeed queues the flips for the callback; it is guarded by the
// tracker's mutex.
type flipFeed struct {
	pending    []State
	delivering bool
}

// push queues a flip and starts a delivery goroutine if none runs. Called
// with r.mu held: the callback itself runs without it.
func (f *flipFeed) push(r *Tracker, x State) {
	if r.cfg.Notify == nil {
		return
	}
	if len(f.pending) >= maxPendingFlips {
		f.pending = f.pending[2:]
	}
	f.pending = append(f.pending, x)
	if !f.delivering {
		f.delivering = true
		r.deliveries.Add(1)
		go r.deliverFlips()
	}
}

// deliverFlips hands the queued flips to the callback until none is left.
func (r *Tracker) deliverFlips() {
	defer r.deliveries.Done()
	for {
		r.mu.Lock()
		if len(r.flips.pending) == 0 {
			r.flips.delivering = false
			r.mu.Unlock()
			return
		}
		x := r.flips.pending[0]
		r.flips.pending = r.flips.pending[1:]
		r.mu.Unlock()
		if !x.Ready {
			x.Missing = r.nodeMissing(x.Required)
		}
		x.Proceeded = r.proceeded.Load()
		r.callNotify(x)
	}
}

func (r *Tracker) callNotify(x State) {
	var err error
	defer func() {
		var pe *panics.Error
		if errors.As(err, &pe) {
			r.cfg.Log.WithFields(logrus.Fields{"ready": x.Ready, "stack": pe.Stack}).
				WithError(pe).Error("nrikit: the runtime's ReadinessChanges callback panicked")
		}
	}()
	defer panics.Recover(&err)
	r.cfg.Notify(x)
}

// Deliveries is the goroutine that hands the flips to the callback, for
// Stop to wait for; callers only Wait on it.
func (r *Tracker) Deliveries() *sync.WaitGroup { return &r.deliveries }
