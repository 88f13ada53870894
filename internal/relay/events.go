// SPDX-License-Identifier: Apache-2.0

// The 13 event methods a runtime calls.

package relay

import (
	"context"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/merge"
	"github.com/nrikit/nrikit/internal/records"
)

// The runtime's per-event entry points. Each goes through relay; the event
// policy table decides what a failing plugin does.

// RunPodSandbox relays a pod's creation.
func (a *Relay) RunPodSandbox(ctx context.Context, req *api.RunPodSandboxRequest) error {
	release, dl, err := a.setupBarrier(ctx, api.Event_RUN_POD_SANDBOX)
	if err != nil {
		a.lifecycle.PodGivenUp(req.GetPod())
		return err
	}
	defer release()
	ev := api.Event_RUN_POD_SANDBOX
	g := a.readiness.SandboxGate(req.GetPod())
	var collect func(*plugin, *api.RunPodSandboxResponse) error
	if g != nil {
		collect = tookPartIn(g)
	}
	err = relayWithin(ctx, a, ev, newOutgoing(req, !policyOf(ev).evolving), api.PluginService.RunPodSandbox, collect, dl, g)
	if err == nil {
		err = g.Check()
	}
	a.lifecycle.PodRan(req.GetPod(), err == nil)
	return err
}

// UpdatePodSandbox relays a pod's resource update.
func (a *Relay) UpdatePodSandbox(ctx context.Context, req *api.UpdatePodSandboxRequest) (*api.UpdatePodSandboxResponse, error) {
	release, dl, err := a.setupBarrier(ctx, api.Event_UPDATE_POD_SANDBOX)
	if err != nil {
		return nil, err
	}
	defer release()
	err = relayUntil(ctx, a, api.Event_UPDATE_POD_SANDBOX, req, api.PluginService.UpdatePodSandbox, nil, dl)
	if err != nil {
		return nil, err
	}
	return &api.UpdatePodSandboxResponse{}, nil
}

// PostUpdatePodSandbox notifies plugins of a pod's completed update.
func (a *Relay) PostUpdatePodSandbox(ctx context.Context, req *api.PostUpdatePodSandboxRequest) error {
	defer a.eventBarrier()()
	return relay(ctx, a, api.Event_POST_UPDATE_POD_SANDBOX, req, api.PluginService.PostUpdatePodSandbox, nil)
}

// StopPodSandbox relays a pod's stop, after the stop of its containers that
// plugins still see running. A plugin's failure never fails it.
func (a *Relay) StopPodSandbox(ctx context.Context, req *api.StopPodSandboxRequest) error {
	defer a.eventBarrier()()
	a.stopContainers(ctx, req.GetPod())
	err := relay(ctx, a, api.Event_STOP_POD_SANDBOX, req, api.PluginService.StopPodSandbox, nil)
	a.lifecycle.PodStopped(req.GetPod())
	return err
}

// RemovePodSandbox relays a pod's removal, after the stop and removal of its
// containers and the pod's stop, where plugins have not had them. A plugin's
// failure never fails it.
func (a *Relay) RemovePodSandbox(ctx context.Context, req *api.RemovePodSandboxRequest) error {
	defer a.eventBarrier()()
	a.removeContainers(ctx, req.GetPod())
	a.stopPod(ctx, req.GetPod())
	err := relay(ctx, a, api.Event_REMOVE_POD_SANDBOX, req, api.PluginService.RemovePodSandbox, nil)
	a.lifecycle.PodRemoved(req.GetPod())
	return err
}

// CreateContainer relays a container's creation and returns the merged
// adjustment and updates, after validators approved them.
func (a *Relay) CreateContainer(ctx context.Context, req *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	release, dl, err := a.setupBarrier(ctx, api.Event_CREATE_CONTAINER)
	if err != nil {
		a.lifecycle.ContainerGivenUp(req.GetContainer())
		return nil, err
	}
	defer release()
	// No plugin joins while the barrier is held: the validators of the end
	// of this creation are known now.
	validators := a.validators()
	shapeContainerLikeReference(req.GetContainer())
	c := a.startCreation(req, validators)
	result, out, handled := c.result, &c.out, c.handled
	collect := func(p *plugin, rsp *api.CreateContainerResponse) error {
		out.changed()
		handled.add(p)
		a.countAdjustments(p, api.Event_CREATE_CONTAINER, rsp.GetAdjust() != nil, rsp.GetUpdate(), rsp.GetEvict())
		return mergeError(result.Apply(p.id, rsp))
	}
	dl = dl.withValidators(validators)
	err = relayWithin(ctx, a, api.Event_CREATE_CONTAINER, out, api.PluginService.CreateContainer, collect, dl, nil)
	if err == nil {
		// A reply that failed to merge always fails the event (event_policy.go);
		// this keeps a half-merged response from ever reaching the runtime.
		err = mergeError(result.Err())
	}
	var merged *api.CreateContainerResponse
	var consulted []*plugin // the validators that approved it
	if err == nil {
		merged = result.Response()
		shapeLikeReference(merged.Adjust)
		consulted, err = a.validate(ctx, dl, req, c, merged, validators)
	}
	a.lifecycle.ContainerCreated(req.GetContainer(), err == nil)
	if err != nil {
		return nil, err
	}
	a.logDiscarded(ctx, api.Event_CREATE_CONTAINER, result.Discarded())
	if a.cfg.Records.On() {
		id := req.GetContainer().GetId()
		a.cfg.Records.Created(req.GetContainer(), result.OwnersOf(id), a.cfg.DefaultValidator != nil,
			len(consulted), func(i int) string { return consulted[i].id })
		a.cfg.Records.UpdatesMerged(records.ByCreation, result.Updated(), result.OwnersOf)
	}
	return merged, nil
}

// PostCreateContainer notifies plugins of a created container.
func (a *Relay) PostCreateContainer(ctx context.Context, req *api.PostCreateContainerRequest) error {
	defer a.eventBarrier()()
	return relay(ctx, a, api.Event_POST_CREATE_CONTAINER, req, api.PluginService.PostCreateContainer, nil)
}

// StartContainer relays a container's start.
func (a *Relay) StartContainer(ctx context.Context, req *api.StartContainerRequest) error {
	release, dl, err := a.setupBarrier(ctx, api.Event_START_CONTAINER)
	if err != nil {
		return err
	}
	defer release()
	return relayUntil(ctx, a, api.Event_START_CONTAINER, req, api.PluginService.StartContainer, nil, dl)
}

// PostStartContainer notifies plugins of a started container.
func (a *Relay) PostStartContainer(ctx context.Context, req *api.PostStartContainerRequest) error {
	defer a.eventBarrier()()
	return relay(ctx, a, api.Event_POST_START_CONTAINER, req, api.PluginService.PostStartContainer, nil)
}

// UpdateContainer relays a container's resource update and returns the
// merged updates; the updated container's own entry comes last.
func (a *Relay) UpdateContainer(ctx context.Context, req *api.UpdateContainerRequest) (*api.UpdateContainerResponse, error) {
	release, dl, err := a.setupBarrier(ctx, api.Event_UPDATE_CONTAINER)
	if err != nil {
		return nil, err
	}
	defer release()
	result := merge.NewUpdate(req)
	collect := func(p *plugin, rsp *api.UpdateContainerResponse) error {
		a.countAdjustments(p, api.Event_UPDATE_CONTAINER, false, rsp.GetUpdate(), rsp.GetEvict())
		return mergeError(result.Apply(p.id, rsp))
	}
	if err := relayUntil(ctx, a, api.Event_UPDATE_CONTAINER, req, api.PluginService.UpdateContainer, collect, dl); err != nil {
		return nil, err
	}
	a.logDiscarded(ctx, api.Event_UPDATE_CONTAINER, result.Discarded())
	a.cfg.Records.UpdatesMerged(records.ByReply, result.Updated(), result.OwnersOf)
	return result.Response(), nil
}

// PostUpdateContainer notifies plugins of a container's completed update.
func (a *Relay) PostUpdateContainer(ctx context.Context, req *api.PostUpdateContainerRequest) error {
	defer a.eventBarrier()()
	return relay(ctx, a, api.Event_POST_UPDATE_CONTAINER, req, api.PluginService.PostUpdateContainer, nil)
}

// StopContainer relays a container's stop and returns plugins' updates to
// other containers. A failing plugin never fails it.
func (a *Relay) StopContainer(ctx context.Context, req *api.StopContainerRequest) (*api.StopContainerResponse, error) {
	defer a.eventBarrier()()
	result := merge.NewStop(req)
	collect := func(p *plugin, rsp *api.StopContainerResponse) error {
		a.countAdjustments(p, api.Event_STOP_CONTAINER, false, rsp.GetUpdate(), nil)
		if err := result.Apply(p.id, rsp); err != nil {
			p.logCtx(ctx).WithError(err).Warn("nrikit: updates from StopContainer dropped")
		}
		return nil
	}
	err := relay(ctx, a, api.Event_STOP_CONTAINER, req, api.PluginService.StopContainer, collect)
	a.lifecycle.ContainerStopped(req.GetContainer())
	a.logDiscarded(ctx, api.Event_STOP_CONTAINER, result.Discarded())
	a.cfg.Records.UpdatesMerged(records.ByStop, result.Updated(), result.OwnersOf)
	return result.Response(), err
}

// RemoveContainer relays a container's removal, after its stop where
// plugins have not had it. A plugin's failure never fails it.
func (a *Relay) RemoveContainer(ctx context.Context, req *api.RemoveContainerRequest) error {
	defer a.eventBarrier()()
	a.stopContainer(ctx, req.GetPod(), req.GetContainer())
	err := relay(ctx, a, api.Event_REMOVE_CONTAINER, req, api.PluginService.RemoveContainer, nil)
	a.lifecycle.ContainerRemoved(req.GetContainer())
	a.cfg.Records.Removed(req.GetContainer().GetId())
	return err
}

func (a *Relay) countAdjustments(p *plugin, ev api.Event, adjusted bool, updates []*api.ContainerUpdate, evictions []*api.ContainerEviction) {
	n := 0
	if adjusted {
		n = 1
	}
	a.cfg.Metrics.AdjustmentsReturned(p.id, ev, n, len(updates), len(evictions))
}

// logDiscarded reports updates dropped because they conflicted while their
// plugin allowed failure (ignore_failure).
func (a *Relay) logDiscarded(ctx context.Context, ev api.Event, discarded []error) {
	log := a.logCtx(ctx).WithField("event", ev.Name())
	for i, err := range discarded {
		if i == maxDiscardedLogged {
			log.WithField("count", len(discarded)-i).Info("nrikit: more conflicting updates ignored as their plugins allowed")
			return
		}
		log.WithError(err).Info("nrikit: conflicting update ignored as its plugin allowed")
	}
}

// maxDiscardedLogged bounds the lines one event's ignored updates make: a
// reply may hold thousands.
const maxDiscardedLogged = 10
