// SPDX-License-Identifier: Apache-2.0

// Telling a joining plugin what its snapshot missed, in order.

package adaptation

import (
	"cmp"
	"context"
	"slices"

	"github.com/nrikit/nrikit/api"
)

// catchUp records what p learned from its snapshot and then tells it what
// the snapshot missed: by a RunPodSandbox, every pod whose fan-out finished
// before p joined but that the snapshot left out or listed as still being
// created; then, in the order they happened, the stops relayed since the
// runtime's SyncFn was called (the clock since) of what p now knows as
// running. It runs under the event barrier, before p joins, so it comes
// before any other event for those pods and containers.
func (a *Adaptation) catchUp(ctx context.Context, p *plugin, pods []*api.PodSandbox, ctrs []*api.Container, since uint64) error {
	for _, c := range a.lifecycle.synced(p, pods, ctrs, since) {
		if !p.subscribed(c.ev) {
			continue
		}
		err := p.invoke(ctx, p.timeout, func(ctx context.Context) error {
			return c.send(ctx, a, p)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// missedEvent is one event a joining plugin is told after its snapshot.
type missedEvent struct {
	ev  api.Event
	pod *api.PodSandbox
	ctr *api.Container
}

func (m missedEvent) send(ctx context.Context, a *Adaptation, p *plugin) error {
	var err error
	switch m.ev {
	case api.Event_RUN_POD_SANDBOX:
		req := newOutgoing(&api.RunPodSandboxRequest{Pod: m.pod}, false)
		_, err = callPlugin(ctx, a, p, m.ev, req, api.PluginService.RunPodSandbox)
	case api.Event_STOP_POD_SANDBOX:
		req := newOutgoing(&api.StopPodSandboxRequest{Pod: m.pod}, false)
		_, err = callPlugin(ctx, a, p, m.ev, req, api.PluginService.StopPodSandbox)
	case api.Event_STOP_CONTAINER:
		req := newOutgoing(&api.StopContainerRequest{Pod: m.pod, Container: m.ctr}, false)
		_, err = callPlugin(ctx, a, p, m.ev, req, api.PluginService.StopContainer)
	}
	return err
}

// missingContainers lists the containers whose creation fan-out finished
// within the window the lists may have missed (sweep kept them unmissed)
// but that ctrs leaves out, in creation order, when the snapshot announces
// their pod: a joining plugin learns of them in its snapshot, as of every
// other live container, and never of a container before its pod. Called
// with mu held.
func (l *lifecycle) missingContainers(pods []*api.PodSandbox, ctrs []*api.Container) []*api.Container {
	seen := make(map[string]bool, len(ctrs))
	for _, c := range ctrs {
		seen[c.GetId()] = true
	}
	announced := make(map[string]bool, len(pods))
	for _, p := range pods {
		announced[p.GetId()] = p.GetState() != api.PodSandboxState_POD_SANDBOX_UNKNOWN
	}
	var missed []*record
	for id, r := range l.ctrs {
		if r.ran && r.ctr != nil && r.missed == 0 && !seen[id] && l.announces(announced, r.podID) {
			missed = append(missed, r)
		}
	}
	return inCreationOrder(missed, func(r *record) *api.Container { return r.ctr })
}

// announces reports whether a snapshot with the listed pods announces the
// pod id: listed as created, or added by announcePodsOf. Called with mu
// held.
func (l *lifecycle) announces(listed map[string]bool, id string) bool {
	if listed[id] {
		return true
	}
	r := l.pods[id]
	return r != nil && r.ran && r.pod != nil && r.missed == 0
}

// inCreationOrder sorts records by creation and picks what each carries.
func inCreationOrder[T any](records []*record, pick func(*record) T) []T {
	slices.SortFunc(records, func(a, b *record) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]T, len(records))
	for i, r := range records {
		out[i] = pick(r)
	}
	return out
}

// synced marks what p's snapshot announced, and returns what p still has to
// be told: the pods it missed, in creation order, then the stops since the
// clock since, in the order they happened.
func (l *lifecycle) synced(p *plugin, pods []*api.PodSandbox, ctrs []*api.Container, since uint64) []missedEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, pod := range pods {
		if pod.GetId() == "" || pod.GetState() == api.PodSandboxState_POD_SANDBOX_UNKNOWN || l.removed.has(pod.GetId()) {
			continue
		}
		r := l.lookup(l.pods, pod.GetId(), "", false)
		r.plugins.add(p, seenCreated)
	}
	for _, ctr := range ctrs {
		if ctr.GetId() != "" && !l.removed.has(ctr.GetId()) {
			r := l.lookup(l.ctrs, ctr.GetId(), ctr.GetPodSandboxId(), false)
			r.plugins.add(p, seenCreated)
		}
	}
	var missed []*record
	for _, r := range l.pods {
		if !r.ran || r.state(p)&seenCreated != 0 {
			continue
		}
		if r.missed != 0 {
			l.owe(r, p) // unlisted: the runtime's to tell (lifecycle_owed.go)
			continue
		}
		r.plugins.add(p, seenCreated)
		missed = append(missed, r)
	}
	events := inCreationOrder(missed, func(r *record) missedEvent {
		return missedEvent{ev: api.Event_RUN_POD_SANDBOX, pod: r.pod}
	})
	return append(events, l.stopsSince(p, since)...)
}
