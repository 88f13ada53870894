// SPDX-License-Identifier: Apache-2.0

// When the records outgrow the last listing, and applying a listing no plugin asked for.

package lifecycle

import "github.com/nrikit/nrikit/api"

// SweepSlack is the fewest new records since the last listing that make
// nrikit ask the runtime for a listing of its own: a runtime that
// relays no teardown event (or drops some), with no plugin joining, would
// otherwise grow the records of what it no longer has without bound.
const SweepSlack = 1024

// overgrownLocked asks for a listing once the records outgrow the last
// one's. Called with mu held.
func (l *Store[P]) overgrownLocked() {
	if len(l.pods)+len(l.ctrs) <= l.sweepAbove {
		return
	}
	select {
	case l.overgrown <- struct{}{}:
	default: // asked already
	}
}

// Overgrown receives once the records outgrew the last listing's bound, at
// most one request pending: the caller then lists the runtime's state and
// hands it to [Store.SweepListed], or calls [Store.PostponeSweep] if it
// cannot.
func (l *Store[P]) Overgrown() <-chan struct{} { return l.overgrown }

// IsOvergrown reports whether the records outgrow the last listing's bound
// now: a request on [Store.Overgrown] may have been seen to already.
func (l *Store[P]) IsOvergrown() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.pods)+len(l.ctrs) > l.sweepAbove
}

// sweptLocked sets the next bound after a listing: as many new records as
// the runtime has objects (kept: those not missed, or listed: what a
// joining plugin's snapshot may add), and at least SweepSlack. The records
// a listing missed once go at the next, so they stay within that bound
// too. Called with mu held.
func (l *Store[P]) sweptLocked(kept, listed int) {
	l.sweepAbove = len(l.pods) + len(l.ctrs) + max(kept, listed, SweepSlack)
}

// PostponeSweep sets the next bound after a listing failed, as a listing
// that kept every record would: a SyncFn that keeps failing is called once
// per doubling of the records, not on every new one.
func (l *Store[P]) PostponeSweep() {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.pods) + len(l.ctrs)
	l.sweptLocked(n, n)
}

// SweepListed applies the runtime's lists to the records (sweep), for a
// listing no plugin asked for; from is the clock ([Store.Now]) when the
// listing was asked for. The caller holds its event barrier, as for
// [Store.Reconcile].
func (l *Store[P]) SweepListed(pods []*api.PodSandbox, ctrs []*api.Container, from uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(pods, ctrs, from)
}
