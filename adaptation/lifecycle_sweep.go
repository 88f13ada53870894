// SPDX-License-Identifier: Apache-2.0

// nrikit's own listings when the records outgrow the last one.

package adaptation

import (
	"context"
	"errors"

	"github.com/nrikit/nrikit/api"
)

// sweepSlack is the fewest new records since the last listing that make
// nrikit ask the runtime for a listing of its own: a runtime that
// relays no teardown event (or drops some), with no plugin joining, would
// otherwise grow the records of what it no longer has without bound.
const sweepSlack = 1024

// overgrownLocked asks for a listing once the records outgrow the last
// one's. Called with mu held.
func (l *lifecycle) overgrownLocked() {
	if len(l.pods)+len(l.ctrs) <= l.sweepAbove {
		return
	}
	select {
	case l.overgrown <- struct{}{}:
	default: // asked already
	}
}

func (l *lifecycle) isOvergrown() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.pods)+len(l.ctrs) > l.sweepAbove
}

// sweptLocked sets the next bound after a listing: as many new records as
// the runtime has objects (kept: those not missed, or listed: what a
// joining plugin's snapshot may add), and at least sweepSlack. The records
// a listing missed once go at the next, so they stay within that bound
// too. Called with mu held.
func (l *lifecycle) sweptLocked(kept, listed int) {
	l.sweepAbove = len(l.pods) + len(l.ctrs) + max(kept, listed, sweepSlack)
}

// postponeSweep sets the next bound after a listing failed, as a listing
// that kept every record would: a SyncFn that keeps failing is called once
// per doubling of the records, not on every new one.
func (l *lifecycle) postponeSweep() {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.pods) + len(l.ctrs)
	l.sweptLocked(n, n)
}

// sweepListed applies the runtime's lists to the records (sweep), for a
// listing no plugin asked for.
func (l *lifecycle) sweepListed(pods []*api.PodSandbox, ctrs []*api.Container, from uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(pods, ctrs, from)
}

// sweepWhenOvergrown lists the runtime's state, through SyncFn as for a
// joining plugin but sending it to none, whenever the records outgrow the
// last listing, until runCtx ends.
func (a *Adaptation) sweepWhenOvergrown(runCtx context.Context) {
	defer a.wg.Done()
	for {
		select {
		case <-runCtx.Done():
			return
		case <-a.lifecycle.overgrown:
		}
		if !a.lifecycle.isOvergrown() {
			continue // asked again while a listing ran, which has seen to it
		}
		if err := a.listForRecords(runCtx); err != nil && runCtx.Err() == nil {
			a.lifecycle.postponeSweep()
			a.log.WithError(err).Warn("nrikit: listing the runtime's state to forget what it no longer has failed")
		}
	}
}

var errNoListing = errors.New("nrikit: the runtime's sync function did not call its callback")

// listForRecords calls SyncFn as a synchronization does (after the
// BlockPluginSync blocks, holding no lock of nrikit's) and sweeps the
// records with its lists, under the event barrier. Without a SyncFn the
// lists are empty, as every joining plugin's snapshot is.
func (a *Adaptation) listForRecords(ctx context.Context) error {
	releaseGate, err := a.syncGate.EnterExclusiveCtx(ctx)
	if err != nil {
		return err
	}
	defer releaseGate()
	from, called := a.lifecycle.now(), false
	sweep := func(ctx context.Context, pods []*api.PodSandbox, ctrs []*api.Container) ([]*api.ContainerUpdate, error) {
		if called {
			return nil, errors.New("nrikit: sync callback called twice")
		}
		called = true
		if err := ctx.Err(); err != nil {
			return nil, err // stopping
		}
		release := a.barrier.EnterExclusive()
		defer release()
		a.lifecycle.sweepListed(pods, ctrs, from)
		return nil, nil
	}
	if a.syncFn == nil {
		_, err = sweep(ctx, nil, nil)
		return err
	}
	err = a.syncFn(ctx, sweep)
	if err == nil && !called {
		err = errNoListing
	}
	return err
}
