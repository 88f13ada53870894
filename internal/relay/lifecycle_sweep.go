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
func (a *Relay) sweepWhenOvergrown(runCtx context.Context) {
	defer a.wg.Done()
	for {
		select {
		case <-runCtx.Done():
			return
		case <-a.lifecycle.Overgrown():
		}
		if !a.lifecycle.IsOvergrown() {
			continue // asked again while a listing ran, which has seen to it
		}
		if err := a.listForRecords(runCtx); err != nil && runCtx.Err() == nil {
			a.lifecycle.PostponeSweep()
			a.log.WithError(err).Warn("nrikit: listing the runtime's state to forget what it no longer has failed")
		}
	}
}

var errNoListing = errors.New("nrikit: the runtime's sync function did not call its callback")

// listForRecords calls SyncFn as a synchronization does (after the
// BlockPluginSync blocks, holding no lock of nrikit's) and sweeps the
// records with its lists, under the event barrier. Without a SyncFn the
// lists are empty, as every joining plugin's snapshot is.
func (a *Relay) listForRecords(ctx context.Context) error {
	releaseGate, err := a.syncGate.EnterExclusiveCtx(ctx)
	if err != nil {
		return err
	}
	defer releaseGate()
	from, called := a.lifecycle.Now(), false
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
		a.lifecycle.SweepListed(pods, ctrs, from)
		return nil, nil
	}
	if a.cfg.Sync == nil {
		_, err = sweep(ctx, nil, nil)
		return err
	}
	err = a.cfg.Sync(ctx, sweep)
	if err == nil && !called {
		err = errNoListing
	}
	return err
}
