package adaptation

import (
	"cmp"
	"context"
	"slices"

	"github.com/nrikit/nrikit/api"
)

// catchUp records what p learned from its snapshot and then tells it, by a
// RunPodSandbox, of every pod whose fan-out finished before p joined but
// that the snapshot missed or listed as still being created. It runs under
// the event barrier, before p joins, so it comes before any other event for
// those pods.
func (a *Adaptation) catchUp(ctx context.Context, p *plugin, pods []*api.PodSandbox, ctrs []*api.Container) error {
	for _, pod := range a.lifecycle.synced(p, pods, ctrs) {
		err := p.invoke(ctx, a.opts.request, func(ctx context.Context) error {
			req := newOutgoing(&api.RunPodSandboxRequest{Pod: pod}, false)
			_, err := callPlugin(ctx, a, p, api.Event_RUN_POD_SANDBOX, req, api.PluginService.RunPodSandbox)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// missingContainers lists the containers whose creation fan-out finished
// but that the runtime's snapshot leaves out, in creation order: a joining
// plugin learns of them in its snapshot, as of every other live container.
func (l *lifecycle) missingContainers(listed []*api.Container) []*api.Container {
	seen := make(map[string]bool, len(listed))
	for _, c := range listed {
		seen[c.GetId()] = true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var missed []*record
	for id, r := range l.ctrs {
		if r.ran && r.ctr != nil && !seen[id] {
			missed = append(missed, r)
		}
	}
	return inCreationOrder(missed, func(r *record) *api.Container { return r.ctr })
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

// synced marks what p's snapshot announced, and returns the pods it still
// has to be told of, in creation order.
func (l *lifecycle) synced(p *plugin, pods []*api.PodSandbox, ctrs []*api.Container) []*api.PodSandbox {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, pod := range pods {
		if pod.GetId() == "" || pod.GetState() == api.PodSandboxState_POD_SANDBOX_UNKNOWN || l.removed.has(pod.GetId()) {
			continue
		}
		r := l.lookup(l.pods, pod.GetId(), "", false)
		r.plugins[p] |= seenCreated
	}
	for _, ctr := range ctrs {
		if ctr.GetId() != "" && !l.removed.has(ctr.GetId()) {
			r := l.lookup(l.ctrs, ctr.GetId(), ctr.GetPodSandboxId(), false)
			r.plugins[p] |= seenCreated
		}
	}
	var missed []*record
	for _, r := range l.pods {
		if !r.ran || r.state(p)&seenCreated != 0 {
			continue
		}
		r.plugins[p] |= seenCreated
		if p.subscribed(api.Event_RUN_POD_SANDBOX) {
			missed = append(missed, r)
		}
	}
	return inCreationOrder(missed, func(r *record) *api.PodSandbox { return r.pod })
}
