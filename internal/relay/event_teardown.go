// SPDX-License-Identifier: Apache-2.0

// The stops and removals nrikit relays on its own when a pod goes.

package relay

import (
	"context"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/lifecycle"
)

// The runtime may stop or remove a pod with containers it never stopped or
// removed through NRI, and remove what it never stopped (CRI allows both).
// Plugins still get every step, in order; the lifecycle contract drops the
// ones a plugin already had, so a runtime that does send them all costs
// nothing extra.

// stopContainers stops, for plugins, the pod's containers they still see
// running.
func (r *Relay) stopContainers(ctx context.Context, pod *api.PodSandbox) {
	for _, ctr := range r.lifecycle.ContainersOf(pod) {
		r.stopContainer(ctx, pod, ctr)
	}
}

// removeContainers stops and removes, for plugins, the pod's containers.
func (r *Relay) removeContainers(ctx context.Context, pod *api.PodSandbox) {
	for _, ctr := range r.lifecycle.ContainersOf(pod) {
		r.stopContainer(ctx, pod, ctr)
		req := &api.RemoveContainerRequest{Pod: pod, Container: ctr}
		_ = fanOut(ctx, r, api.Event_REMOVE_CONTAINER, req, api.PluginService.RemoveContainer, nil)
		r.lifecycle.ContainerRemoved(ctr)
	}
}

// stopContainer and stopPod send a step that may be missing. Without an ID
// there is no record of what plugins had, so nothing is added.
func (r *Relay) stopContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) {
	req := &api.StopContainerRequest{Pod: pod, Container: ctr}
	if lifecycle.PodID(req) == "" || ctr.GetId() == "" {
		return
	}
	_ = fanOut(ctx, r, api.Event_STOP_CONTAINER, req, api.PluginService.StopContainer, nil)
	r.lifecycle.ContainerStopped(ctr)
}

func (r *Relay) stopPod(ctx context.Context, pod *api.PodSandbox) {
	if pod.GetId() == "" {
		return
	}
	_ = fanOut(ctx, r, api.Event_STOP_POD_SANDBOX, &api.StopPodSandboxRequest{Pod: pod}, api.PluginService.StopPodSandbox, nil)
}
