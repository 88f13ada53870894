// SPDX-License-Identifier: Apache-2.0

// The StateChange fallback for plugins built before the dedicated event RPCs.

package relay

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/nrikit/nrikit/api"
)

// compatState remembers that a plugin predates the dedicated RPCs. The
// switch is sticky: after the first Unimplemented, all nine StateChange
// events go straight to StateChange, so detecting a legacy plugin costs one
// extra round trip per plugin, not one per event.
type compatState struct {
	stateChange atomic.Bool
	reported    atomic.Int32 // api.EventMask of the deprecations reported
}

// markReported tells whether ev's deprecation is news for this plugin. It
// lives with the plugin rather than with the Deprecations() records, so that
// a call returning after its plugin was forgotten is not reported twice.
func (c *compatState) markReported(ev api.Event) bool {
	bit := int32(ev.Mask())
	return c.reported.Or(bit)&bit == 0
}

type podRequest interface{ GetPod() *api.PodSandbox }
type containerRequest interface{ GetContainer() *api.Container }

// callPlugin makes the dedicated RPC of ev, falling back to StateChange for
// plugins that do not implement it. A response of a StateChange-relayed
// event is the zero value: none of those events returns anything.
func callPlugin[Req, Rsp any](ctx context.Context, r *Relay, p *plugin, ev api.Event, out *outgoing[Req], rpc rpcFunc[Req, Rsp]) (Rsp, error) {
	var none Rsp
	req := out.req
	fallback := policyOf(ev).stateChange && p.rev.StateChange
	if fallback && p.compat.stateChange.Load() {
		return none, r.relayStateChange(ctx, p, ev, req)
	}
	rsp, err := rpc(p.svc, ctx, out.to(p))
	if err == nil || !fallback || !isUnimplemented(err) {
		return rsp, err
	}
	if p.compat.stateChange.CompareAndSwap(false, true) {
		p.log.WithField("event", ev.Name()).Info("nrikit: plugin predates dedicated event RPCs; using StateChange")
	}
	return none, r.relayStateChange(ctx, p, ev, req)
}

// relayStateChange delivers ev through the old multiplexed call. The
// deprecation is recorded whatever the call's outcome: a plugin sent here has
// shown that it lacks the dedicated RPC, even if it then times out, fails or
// crashes. Only a plugin without StateChange either is not deprecated but
// broken.
func (r *Relay) relayStateChange(ctx context.Context, p *plugin, ev api.Event, req any) error {
	sc := &api.StateChangeEvent{Event: ev}
	if pr, ok := req.(podRequest); ok {
		sc.Pod = pr.GetPod()
	}
	if cr, ok := req.(containerRequest); ok && ev.IsContainerEvent() {
		sc.Container = cr.GetContainer()
	}
	_, err := p.svc.StateChange(ctx, newOutgoing(sc, true).to(p))
	if isUnimplemented(err) {
		return fmt.Errorf("plugin implements neither the %s RPC nor StateChange: %w", ev.Name(), err)
	}
	// The call's deadline may be gone; the recorder still deserves a live
	// context.
	r.deprecations.record(context.WithoutCancel(ctx), p, ev)
	return err
}
