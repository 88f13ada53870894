// SPDX-License-Identifier: Apache-2.0

// Pods owed to a plugin: their RunPodSandbox goes before the next event for them.

package relay

import (
	"context"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/lifecycle"
)

// The lifecycle store keeps which pods a plugin is owed and orders their
// payment (internal/lifecycle/owed.go); the owed RunPodSandbox is sent here.

// payOwed tells p of the pod of req it is owed, if any, before ev. A
// failure is logged: the event itself is still relayed to p.
func (r *Relay) payOwed(ctx context.Context, p *plugin, ev api.Event, req any) {
	r.lifecycle.PayOwed(p, ev, req, func(pod *api.PodSandbox) {
		if !p.subscribed(api.Event_RUN_POD_SANDBOX) {
			return
		}
		owed := lifecycle.Missed{Event: api.Event_RUN_POD_SANDBOX, Pod: pod}
		err := p.invoke(ctx, p.timeout, func(ctx context.Context) error { return sendMissed(ctx, r, p, owed) })
		if err != nil {
			p.log.WithError(err).WithField("event", ev.Name()).WithField("pod", pod.GetId()).
				Warn("nrikit: telling the plugin of a pod its snapshot left out failed")
		}
	})
}
