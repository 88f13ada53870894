// SPDX-License-Identifier: Apache-2.0

// Pods owed to a plugin: their RunPodSandbox goes before the next event for them.

package adaptation

import (
	"context"

	"github.com/nrikit/nrikit/api"
)

// A pod whose creation a plugin never heard, and that the runtime's list
// left out of its snapshot, is the runtime's to tell: it may be gone, or
// stored only after the listing. The plugin is owed it: if the runtime
// relays an event for the pod later, it still has it, and the plugin hears
// its RunPodSandbox right before that event, so pods still come before
// their containers, stops and removals, exactly once.
//
// While any pod is owed (lifecycle.owing), every plugin's turn in a fan-out
// passes through lifecycle.paying, held until the owed RunPodSandbox was
// sent: a concurrent event for the same pod cannot reach the plugin first.

// owe marks r as owed to p. Called with mu held.
func (l *lifecycle) owe(r *record, p *plugin) {
	if s, _ := r.plugins.get(p); s&seenOwed == 0 {
		r.plugins.add(p, seenOwed)
		l.owing.Add(1)
	}
}

// unowe drops what r owes: to p, or to every plugin if p is nil. Called
// with mu held, before r's views are dropped.
func (l *lifecycle) unowe(r *record, p *plugin) {
	if r == nil {
		return
	}
	for _, v := range r.plugins.list {
		if (p == nil || v.p == p) && v.s&(seenOwed|seenCreated) == seenOwed {
			l.owing.Add(-1)
		}
	}
}

// owedPod returns the pod of req that p is owed, marked created for p, or
// nil. A RunPodSandbox is the pod's announcement itself.
func (l *lifecycle) owedPod(p *plugin, ev api.Event, req any) *api.PodSandbox {
	if ev == api.Event_RUN_POD_SANDBOX {
		return nil
	}
	podID := podIDOf(req)
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.pods[podID]
	if r == nil || r.state(p)&(seenOwed|seenCreated|seenRemoved) != seenOwed {
		return nil
	}
	r.plugins.add(p, seenCreated)
	return l.podOf(podID)
}

// payOwed tells p of the pod of req it is owed, if any, before ev. A
// failure is logged: the event itself is still relayed to p.
func (a *Adaptation) payOwed(ctx context.Context, p *plugin, ev api.Event, req any) {
	l := &a.lifecycle
	if l.owing.Load() == 0 {
		return
	}
	l.paying.Lock()
	defer l.paying.Unlock()
	pod := l.owedPod(p, ev, req)
	if pod == nil {
		return
	}
	defer l.owing.Add(-1) // after the send: see the ordering above
	if !p.subscribed(api.Event_RUN_POD_SANDBOX) {
		return
	}
	owed := missedEvent{ev: api.Event_RUN_POD_SANDBOX, pod: pod}
	err := p.invoke(ctx, p.timeout, func(ctx context.Context) error { return owed.send(ctx, a, p) })
	if err != nil {
		p.log.WithError(err).WithField("event", ev.Name()).WithField("pod", pod.GetId()).
			Warn("nrikit: telling the plugin of a pod its snapshot left out failed")
	}
}
