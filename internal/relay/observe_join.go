// SPDX-License-Identifier: Apache-2.0

// An observer joining: its snapshot is taken as any plugin's, but queued, never awaited under the
// event barrier.

package relay

import (
	"context"
	"errors"
	"fmt"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/observe"
)

// queueSnapshot queues the Synchronize messages of an observer's snapshot,
// encoded now, under the event barrier, as any plugin's snapshot is taken;
// but the barrier is not held while the observer takes them: the events
// that follow queue up behind them. The snapshot is not counted against
// the queue's bounds: the node's state bounds it, and it is needed whole.
// A message that fails drops the observer, as a failed synchronization
// fails any plugin's joining; the updates it returns are not applied.
func (r *Relay) queueSnapshot(p *plugin, pods []*api.PodSandbox, ctrs []*api.Container) error {
	chunks, err := splitSnapshot(pods, ctrs, maxSyncMessage)
	if err != nil {
		return err
	}
	for i, c := range chunks {
		more := i < len(chunks)-1
		b, err := encodeRequest(&api.SynchronizeRequest{Pods: c.pods, Containers: c.ctrs, More: more})
		if err != nil {
			return err
		}
		p.rollout.queue.Push(observe.Item{Size: len(b), Unbounded: true, Deliver: func(ctx context.Context) {
			r.deliverSnapshot(ctx, p, b, i, len(chunks))
		}})
	}
	return nil
}

// deliverSnapshot sends message i of n of an observer's snapshot.
func (r *Relay) deliverSnapshot(ctx context.Context, p *plugin, b []byte, i, n int) {
	req, err := decodeRequest[*api.SynchronizeRequest](b)
	if err == nil {
		var rsp *api.SynchronizeResponse
		err = p.invoke(ctx, r.cfg.SyncTimeout, func(ctx context.Context) (err error) {
			rsp, err = p.svc.Synchronize(ctx, withEncoding(req, b).to(p))
			return err
		})
		switch {
		case err != nil:
		case !req.GetMore():
			r.ignoreChanges(p, "Synchronize", 0, len(rsp.GetUpdate()), 0)
			p.log.WithField("messages", n).Debug("nrikit: the observer took its snapshot")
		case !rsp.GetMore() || len(rsp.GetUpdate()) > 0:
			err = errUnsupportedSync
		}
	}
	if err == nil || errors.Is(err, ErrPluginClosed) || ctx.Err() != nil {
		return // delivered, or the plugin is going anyway
	}
	if p.kind == nri.External && errors.Is(err, ErrPluginTimeout) {
		r.syncBackoff.TimedOut(p.id)
	}
	r.dropFor(context.Background(), p, nri.PhaseSynchronize, func() string {
		return fmt.Sprintf("Synchronize failed (message %d of %d): %v", i+1, n, err)
	})
}
