// SPDX-License-Identifier: Apache-2.0

// WithReadinessChanges: the runtime's callback on each flip of Readiness.Ready.

package adaptation

import (
	"errors"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/internal/panics"
)

// WithReadinessChanges calls fn each time Readiness().Ready flips, with the
// new Readiness, so that a runtime can update the condition it reports. A
// plugin replaced by a new instance of it does not flip it. Calls come one
// at a time, in order, from a goroutine of nrikit's that holds no lock: fn
// may take the runtime's own locks and call Readiness. A panic in fn is
// logged and recovered. Stop, which flips Readiness to not ready, waits for
// fn to return, within its context and a grace of a second after it; if fn
// is still blocked then (say, on a lock Stop's caller holds), Stop returns
// ErrStopAbandoned, and the flips still queued are delivered once fn
// returns.
func WithReadinessChanges(fn func(Readiness)) Option {
	return func(o *options) error {
		if fn == nil {
			return errors.New("nrikit: nil readiness change callback")
		}
		o.readinessChanges = fn
		return nil
	}
}

// maxPendingFlips bounds the flips waiting for a slow callback; the oldest
// pair is let go first, so that the last flip is always delivered.
const maxPendingFlips = 64

// flipFeed queues the flips for the callback; it is guarded by the
// tracker's mutex.
type flipFeed struct {
	pending    []Readiness
	delivering bool
}

// push queues a flip and starts a delivery goroutine if none runs. Called
// with r.mu held: the callback itself runs without it.
func (f *flipFeed) push(r *readinessTracker, x Readiness) {
	if r.notify == nil {
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
func (r *readinessTracker) deliverFlips() {
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
			x.Missing = r.a.missingPlugins(x.Required)
		}
		x.Proceeded = r.proceeded.Load()
		r.callNotify(x)
	}
}

func (r *readinessTracker) callNotify(x Readiness) {
	var err error
	defer func() {
		if pe := panicIn(err); pe != nil {
			r.a.log.WithFields(logrus.Fields{"ready": x.Ready, "stack": pe.Stack}).
				WithError(pe).Error("nrikit: the runtime's ReadinessChanges callback panicked")
		}
	}()
	defer panics.Recover(&err)
	r.notify(x)
}
