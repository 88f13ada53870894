// SPDX-License-Identifier: Apache-2.0

// Queuing events for observers: encoded once, admitted by the lifecycle contract, delivered in order.

package relay

import (
	"context"
	"errors"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/lifecycle"
	"github.com/nrikit/nrikit/internal/observe"
)

// observedPolicy is the event policy of a call nobody waits for: whatever
// its outcome, no operation fails; a plugin that times out or is lost is
// dropped unless kept by its failure policy, as for a notification.
var observedPolicy = eventPolicy{class: classNotification}

// When an observer gets each event:
//
//   - a setup event (RunPodSandbox, UpdatePodSandbox, CreateContainer,
//     UpdateContainer, StartContainer) once it succeeded, with the request
//     as the other plugins left it: for CreateContainer and
//     UpdateContainer, whose plugins see the request as the earlier ones
//     changed it, that is the request with every plugin's adjustment
//     applied (the container as it is to be created; the resources as they
//     are to be set), what a plugin after the last would have got. A
//     failed creation never reaches it, nor its undo: the lifecycle
//     contract never admitted it for the observer;
//   - a teardown or notification event at its start, before the other
//     plugins get it.
//
// The lifecycle contract admits each event for each observer as it is
// queued: the queue delivers in order, so what it admitted is what the
// observer hears, in that order.

// toObservers queues ev for each observer that takes it and that the
// lifecycle contract admits it for, after a pod it is owed. The request is
// encoded once, here, for all of them, so that the runtime's objects are not
// kept: it may change them once the event returns. Without observers it
// costs a load of the registry.
func toObservers[Req, Rsp any](r *Relay, ev api.Event, req Req, rpc rpcFunc[Req, Rsp]) {
	observers := r.registry.observers()
	if len(observers) == 0 {
		return
	}
	var b []byte
	for _, p := range observers {
		if p.gone() {
			continue
		}
		r.payOwedToObserver(p, ev, req)
		if !r.lifecycle.Admit(p, ev, req) || !p.subscribed(ev) {
			continue
		}
		if b == nil {
			var err error
			if b, err = encodeRequest(req); err != nil {
				r.log.WithField("event", ev.Name()).WithError(err).Warn("nrikit: the request cannot be encoded for the observers")
				return
			}
		}
		queueCall(r, p, ev, b, false, rpc)
	}
}

var errNotMessage = errors.New("nrikit: not a protobuf message")

// encodeRequest is req's encoding, never nil.
func encodeRequest(req any) ([]byte, error) {
	m, ok := req.(proto.Message)
	if !ok {
		return nil, errNotMessage
	}
	b, err := marshal(m)
	if b == nil && err == nil {
		b = []byte{}
	}
	return b, err
}

// payOwedToObserver queues, before ev, the RunPodSandbox of the pod of req
// that the observer p is owed, if any.
func (r *Relay) payOwedToObserver(p *plugin, ev api.Event, req any) {
	r.lifecycle.PayOwed(p, ev, req, func(pod *api.PodSandbox) {
		if p.subscribed(api.Event_RUN_POD_SANDBOX) {
			r.queueMissed(p, lifecycle.Missed{Event: api.Event_RUN_POD_SANDBOX, Pod: pod}, false)
		}
	})
}

// queueMissed queues an event that p's snapshot missed, as sendMissed
// sends it to other plugins; unbounded: it is part of p's joining.
func (r *Relay) queueMissed(p *plugin, m lifecycle.Missed, unbounded bool) {
	queue := func(req any, call func(b []byte)) {
		b, err := encodeRequest(req)
		if err != nil {
			p.log.WithField("event", m.Event.Name()).WithError(err).Warn("nrikit: an event the plugin missed cannot be encoded")
			return
		}
		call(b)
	}
	switch m.Event {
	case api.Event_RUN_POD_SANDBOX:
		queue(&api.RunPodSandboxRequest{Pod: m.Pod}, func(b []byte) {
			queueCall(r, p, m.Event, b, unbounded, api.PluginService.RunPodSandbox)
		})
	case api.Event_STOP_POD_SANDBOX:
		queue(&api.StopPodSandboxRequest{Pod: m.Pod}, func(b []byte) {
			queueCall(r, p, m.Event, b, unbounded, api.PluginService.StopPodSandbox)
		})
	case api.Event_STOP_CONTAINER:
		queue(&api.StopContainerRequest{Pod: m.Pod, Container: m.Container}, func(b []byte) {
			queueCall(r, p, m.Event, b, unbounded, api.PluginService.StopContainer)
		})
	}
}

// queueCall queues one call of ev to p, its request encoded as b. A queue
// that overflows drops p (overflowed).
func queueCall[Req, Rsp any](r *Relay, p *plugin, ev api.Event, b []byte, unbounded bool, rpc rpcFunc[Req, Rsp]) {
	p.rollout.queue.Push(observe.Item{Size: len(b), Unbounded: unbounded, Deliver: func(ctx context.Context) {
		deliverQueued(ctx, r, p, ev, b, rpc)
	}})
}

// deliverQueued makes one queued call, within p's own timeout, and ignores
// its reply. Its outcome is counted and the event policy applied as for a
// notification (observedPolicy): nothing waits for it, nothing fails.
func deliverQueued[Req, Rsp any](ctx context.Context, r *Relay, p *plugin, ev api.Event, b []byte, rpc rpcFunc[Req, Rsp]) {
	req, err := decodeRequest[Req](b)
	if err != nil {
		p.log.WithField("event", ev.Name()).WithError(err).Warn("nrikit: a queued request could not be decoded; not delivered")
		return
	}
	out := withEncoding(req, b)
	_ = r.deliver(ctx, observedPolicy, ev, p, p.policy, callBudget{timeout: p.timeout}, func(ctx context.Context) error {
		rsp, err := callPlugin(ctx, r, p, ev, out, rpc)
		if err == nil {
			r.ignoreReply(p, ev, rsp)
		}
		return err
	})
}

// decodeRequest decodes b as a new request of type Req, for the plugins
// that take messages in-process and for the StateChange fallback; the
// others get b itself.
func decodeRequest[Req any](b []byte) (Req, error) {
	var none Req
	m, ok := any(none).(proto.Message)
	if !ok {
		return none, errNotMessage
	}
	req := m.ProtoReflect().New().Interface()
	if err := proto.Unmarshal(b, req); err != nil {
		return none, err
	}
	return req.(Req), nil
}
