// SPDX-License-Identifier: Apache-2.0

// Telling a joining plugin what its snapshot missed, in order.

package relay

import (
	"context"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/lifecycle"
)

// catchUp records what p learned from its snapshot and then tells it what
// the snapshot missed: by a RunPodSandbox, every pod whose fan-out finished
// before p joined but that the snapshot left out or listed as still being
// created; then, in the order they happened, the stops relayed since the
// runtime's SyncFn was called (the clock since) of what p now knows as
// running. It runs under the event barrier, before p joins, so it comes
// before any other event for those pods and containers.
func (r *Relay) catchUp(ctx context.Context, p *plugin, pods []*api.PodSandbox, ctrs []*api.Container, since uint64) error {
	for _, c := range r.lifecycle.Synced(p, pods, ctrs, since) {
		if !p.subscribed(c.Event) {
			continue
		}
		if p.rollout.observer {
			r.queueMissed(p, c, true) // after its snapshot, in its queue
			continue
		}
		err := p.invoke(ctx, p.timeout, func(ctx context.Context) error {
			return sendMissed(ctx, r, p, c)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// sendMissed tells p one event its snapshot missed.
func sendMissed(ctx context.Context, r *Relay, p *plugin, m lifecycle.Missed) error {
	var err error
	switch m.Event {
	case api.Event_RUN_POD_SANDBOX:
		req := newOutgoing(&api.RunPodSandboxRequest{Pod: m.Pod}, false)
		_, err = callPlugin(ctx, r, p, m.Event, req, api.PluginService.RunPodSandbox)
	case api.Event_STOP_POD_SANDBOX:
		req := newOutgoing(&api.StopPodSandboxRequest{Pod: m.Pod}, false)
		_, err = callPlugin(ctx, r, p, m.Event, req, api.PluginService.StopPodSandbox)
	case api.Event_STOP_CONTAINER:
		req := newOutgoing(&api.StopContainerRequest{Pod: m.Pod, Container: m.Container}, false)
		_, err = callPlugin(ctx, r, p, m.Event, req, api.PluginService.StopContainer)
	}
	return err
}
