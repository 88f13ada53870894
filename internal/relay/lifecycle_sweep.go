// SPDX-License-Identifier: Apache-2.0

// nrikit's own listings when the lifecycle records outgrow the last one.

package relay

import (
	"context"
	"errors"

	"github.com/nrikit/nrikit/api"
)

// sweepWhenOvergrown lists the runtime's state, through SyncFn as for a
// joining plugin but sending it to none, whenever the records outgrow the
// last listing, until runCtx ends.
func (r *Relay) sweepWhenOvergrown(runCtx context.Context) {
	defer r.wg.Done()
	for {
		select {
		case <-runCtx.Done():
			return
		case <-r.lifecycle.Overgrown():
		}
		if !r.lifecycle.IsOvergrown() {
			continue // asked again while a listing ran, which has seen to it
		}
		if err := r.listForRecords(runCtx); err != nil && runCtx.Err() == nil {
			r.lifecycle.PostponeSweep()
			r.log.WithError(err).Warn("nrikit: listing the runtime's state to forget what it no longer has failed")
		}
	}
}

var errNoListing = errors.New("nrikit: the runtime's sync function did not call its callback")

// listForRecords calls SyncFn as a synchronization does (after the
// BlockPluginSync blocks, holding no lock of nrikit's) and sweeps the
// records with its lists, under the event barrier. Without a SyncFn the
// lists are empty, as every joining plugin's snapshot is.
func (r *Relay) listForRecords(ctx context.Context) error {
	releaseGate, err := r.syncGate.EnterExclusiveCtx(ctx)
	if err != nil {
		return err
	}
	defer releaseGate()
	from, called := r.lifecycle.Now(), false
	sweep := func(ctx context.Context, pods []*api.PodSandbox, ctrs []*api.Container) ([]*api.ContainerUpdate, error) {
		if called {
			return nil, errors.New("nrikit: sync callback called twice")
		}
		called = true
		if err := ctx.Err(); err != nil {
			return nil, err // stopping
		}
		release := r.barrier.EnterExclusive()
		defer release()
		r.lifecycle.SweepListed(pods, ctrs, from)
		return nil, nil
	}
	if r.cfg.Sync == nil {
		_, err = sweep(ctx, nil, nil)
		return err
	}
	err = r.cfg.Sync(ctx, sweep)
	if err == nil && !called {
		err = errNoListing
	}
	return err
}
