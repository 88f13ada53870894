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
func (r *Relay) RunPodSandbox(ctx context.Context, req *api.RunPodSandboxRequest) error {
	release, dl, err := r.setupBarrier(ctx, api.Event_RUN_POD_SANDBOX)
	if err != nil {
		r.lifecycle.PodGivenUp(req.GetPod())
		return err
	}
	defer release()
	ev := api.Event_RUN_POD_SANDBOX
	g := r.readiness.SandboxGate(req.GetPod())
	var collect func(*plugin, *api.RunPodSandboxResponse) error
	if g != nil {
		collect = tookPartIn(g)
	}
	err = fanOutWithin(ctx, r, ev, newOutgoing(req, !policyOf(ev).evolving), api.PluginService.RunPodSandbox, collect, dl, g)
	if err == nil {
		err = g.Check()
	}
	r.lifecycle.PodRan(req.GetPod(), err == nil)
	if err == nil {
		toObservers(r, ev, req, api.PluginService.RunPodSandbox) // once it succeeded (observe_events.go)
	}
	return err
}

// UpdatePodSandbox relays a pod's resource update.
func (r *Relay) UpdatePodSandbox(ctx context.Context, req *api.UpdatePodSandboxRequest) (*api.UpdatePodSandboxResponse, error) {
	release, dl, err := r.setupBarrier(ctx, api.Event_UPDATE_POD_SANDBOX)
	if err != nil {
		return nil, err
	}
	defer release()
	err = fanOutUntil(ctx, r, api.Event_UPDATE_POD_SANDBOX, req, api.PluginService.UpdatePodSandbox, nil, dl)
	if err != nil {
		return nil, err
	}
	toObservers(r, api.Event_UPDATE_POD_SANDBOX, req, api.PluginService.UpdatePodSandbox)
	return &api.UpdatePodSandboxResponse{}, nil
}

// PostUpdatePodSandbox notifies plugins of a pod's completed update.
func (r *Relay) PostUpdatePodSandbox(ctx context.Context, req *api.PostUpdatePodSandboxRequest) error {
	defer r.eventBarrier()()
	return fanOut(ctx, r, api.Event_POST_UPDATE_POD_SANDBOX, req, api.PluginService.PostUpdatePodSandbox, nil)
}

// StopPodSandbox relays a pod's stop, after the stop of its containers that
// plugins still see running. A plugin's failure never fails it.
func (r *Relay) StopPodSandbox(ctx context.Context, req *api.StopPodSandboxRequest) error {
	defer r.eventBarrier()()
	r.stopContainers(ctx, req.GetPod())
	err := fanOut(ctx, r, api.Event_STOP_POD_SANDBOX, req, api.PluginService.StopPodSandbox, nil)
	r.lifecycle.PodStopped(req.GetPod())
	return err
}

// RemovePodSandbox relays a pod's removal, after the stop and removal of its
// containers and the pod's stop, where plugins have not had them. A plugin's
// failure never fails it.
func (r *Relay) RemovePodSandbox(ctx context.Context, req *api.RemovePodSandboxRequest) error {
	defer r.eventBarrier()()
	r.removeContainers(ctx, req.GetPod())
	r.stopPod(ctx, req.GetPod())
	err := fanOut(ctx, r, api.Event_REMOVE_POD_SANDBOX, req, api.PluginService.RemovePodSandbox, nil)
	r.lifecycle.PodRemoved(req.GetPod())
	return err
}

// CreateContainer relays a container's creation and returns the merged
// adjustment and updates, after validators approved them. Its stages run
// once each, in order (creation.go): admit, encode, adjust (call each
// plugin, merging its reply), merged, validate, record.
func (r *Relay) CreateContainer(ctx context.Context, req *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	c, err := r.admitCreation(ctx, req)
	if err != nil {
		return nil, err
	}
	defer c.release()
	c.encode()
	err = c.adjust(ctx)
	merged, err := c.merged(err)
	consulted, err := c.validate(ctx, merged, err)
	return c.record(ctx, merged, consulted, err)
}

// PostCreateContainer notifies plugins of a created container.
func (r *Relay) PostCreateContainer(ctx context.Context, req *api.PostCreateContainerRequest) error {
	defer r.eventBarrier()()
	return fanOut(ctx, r, api.Event_POST_CREATE_CONTAINER, req, api.PluginService.PostCreateContainer, nil)
}

// StartContainer relays a container's start.
func (r *Relay) StartContainer(ctx context.Context, req *api.StartContainerRequest) error {
	release, dl, err := r.setupBarrier(ctx, api.Event_START_CONTAINER)
	if err != nil {
		return err
	}
	defer release()
	err = fanOutUntil(ctx, r, api.Event_START_CONTAINER, req, api.PluginService.StartContainer, nil, dl)
	if err == nil {
		toObservers(r, api.Event_START_CONTAINER, req, api.PluginService.StartContainer)
	}
	return err
}

// PostStartContainer notifies plugins of a started container.
func (r *Relay) PostStartContainer(ctx context.Context, req *api.PostStartContainerRequest) error {
	defer r.eventBarrier()()
	return fanOut(ctx, r, api.Event_POST_START_CONTAINER, req, api.PluginService.PostStartContainer, nil)
}

// UpdateContainer relays a container's resource update and returns the
// merged updates; the updated container's own entry comes last.
func (r *Relay) UpdateContainer(ctx context.Context, req *api.UpdateContainerRequest) (*api.UpdateContainerResponse, error) {
	release, dl, err := r.setupBarrier(ctx, api.Event_UPDATE_CONTAINER)
	if err != nil {
		return nil, err
	}
	defer release()
	result := merge.NewUpdate(req)
	result.LimitEvictions(r.lifecycle)
	collect := func(p *plugin, rsp *api.UpdateContainerResponse) error {
		r.countAdjustments(p, api.Event_UPDATE_CONTAINER, false, rsp.GetUpdate(), rsp.GetEvict())
		rsp = r.scopedUpdateReply(p, rsp)
		if err := p.updateInScope(rsp, req.GetContainer().GetId()); err != nil {
			return err
		}
		return mergeError(result.Apply(p.id, rsp))
	}
	if err := fanOutUntil(ctx, r, api.Event_UPDATE_CONTAINER, req, api.PluginService.UpdateContainer, collect, dl); err != nil {
		return nil, err
	}
	// The resources as the plugins left them (merge.Update wrote them back).
	toObservers(r, api.Event_UPDATE_CONTAINER, req, api.PluginService.UpdateContainer)
	r.logDiscarded(ctx, api.Event_UPDATE_CONTAINER, result.Discarded())
	r.logIgnoredEvictions(ctx, api.Event_UPDATE_CONTAINER, result.IgnoredEvictions())
	r.cfg.Records.UpdatesMerged(records.ByReply, result.Updated(), result.OwnersOf)
	return result.Response(), nil
}

// PostUpdateContainer notifies plugins of a container's completed update.
func (r *Relay) PostUpdateContainer(ctx context.Context, req *api.PostUpdateContainerRequest) error {
	defer r.eventBarrier()()
	return fanOut(ctx, r, api.Event_POST_UPDATE_CONTAINER, req, api.PluginService.PostUpdateContainer, nil)
}

// StopContainer relays a container's stop and returns plugins' updates to
// other containers. A failing plugin never fails it.
func (r *Relay) StopContainer(ctx context.Context, req *api.StopContainerRequest) (*api.StopContainerResponse, error) {
	defer r.eventBarrier()()
	result := merge.NewStop(req)
	collect := func(p *plugin, rsp *api.StopContainerResponse) error {
		r.countAdjustments(p, api.Event_STOP_CONTAINER, false, rsp.GetUpdate(), nil)
		rsp = r.scopedStopReply(p, rsp)
		err := p.stopInScope(rsp)
		if err == nil {
			err = result.Apply(p.id, rsp)
		}
		if err != nil {
			p.logCtx(ctx).WithError(err).Warn("nrikit: updates from StopContainer dropped")
		}
		return nil
	}
	err := fanOut(ctx, r, api.Event_STOP_CONTAINER, req, api.PluginService.StopContainer, collect)
	r.lifecycle.ContainerStopped(req.GetContainer())
	r.logDiscarded(ctx, api.Event_STOP_CONTAINER, result.Discarded())
	r.cfg.Records.UpdatesMerged(records.ByStop, result.Updated(), result.OwnersOf)
	return result.Response(), err
}

// RemoveContainer relays a container's removal, after its stop where
// plugins have not had it. A plugin's failure never fails it.
func (r *Relay) RemoveContainer(ctx context.Context, req *api.RemoveContainerRequest) error {
	defer r.eventBarrier()()
	r.stopContainer(ctx, req.GetPod(), req.GetContainer())
	err := fanOut(ctx, r, api.Event_REMOVE_CONTAINER, req, api.PluginService.RemoveContainer, nil)
	r.lifecycle.ContainerRemoved(req.GetContainer())
	r.cfg.Records.Removed(req.GetContainer().GetId())
	return err
}

func (r *Relay) countAdjustments(p *plugin, ev api.Event, adjusted bool, updates []*api.ContainerUpdate, evictions []*api.ContainerEviction) {
	n := 0
	if adjusted {
		n = 1
	}
	r.cfg.Metrics.AdjustmentsReturned(p.id, ev, n, len(updates), len(evictions))
}

// logDiscarded reports updates dropped because they conflicted while their
// plugin allowed failure (ignore_failure).
func (r *Relay) logDiscarded(ctx context.Context, ev api.Event, discarded []error) {
	if len(discarded) == 0 {
		return
	}
	log := r.logCtx(ctx).WithField("event", ev.Name())
	for i, err := range discarded {
		if i == maxDiscardedLogged {
			log.WithField("count", len(discarded)-i).Info("nrikit: more conflicting updates ignored as their plugins allowed")
			return
		}
		log.WithError(err).Info("nrikit: conflicting update ignored as its plugin allowed")
	}
}

// logIgnoredEvictions reports evictions dropped because the runtime does
// not have their container: one line per plugin's reply.
func (r *Relay) logIgnoredEvictions(ctx context.Context, ev api.Event, ignored []error) {
	for _, err := range ignored {
		r.logCtx(ctx).WithField("event", ev.Name()).WithError(err).Info("nrikit: evictions of unknown containers ignored")
	}
}

// maxDiscardedLogged bounds the lines one event's ignored updates make: a
// reply may hold thousands.
const maxDiscardedLogged = 10
