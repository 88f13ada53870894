// SPDX-License-Identifier: Apache-2.0

// The 13 event methods a runtime calls; each is relayed to the plugins by internal/relay.

package adaptation

import (
	"context"

	"github.com/nrikit/nrikit/api"
)

// The runtime's per-event entry points. The event policy table (the
// package doc's "Failure policy") decides what a failing plugin does to
// each.

// RunPodSandbox relays a pod's creation.
func (a *Adaptation) RunPodSandbox(ctx context.Context, req *api.RunPodSandboxRequest) error {
	return a.relay.RunPodSandbox(ctx, req)
}

// UpdatePodSandbox relays a pod's resource update.
func (a *Adaptation) UpdatePodSandbox(ctx context.Context, req *api.UpdatePodSandboxRequest) (*api.UpdatePodSandboxResponse, error) {
	return a.relay.UpdatePodSandbox(ctx, req)
}

// PostUpdatePodSandbox notifies plugins of a pod's completed update.
func (a *Adaptation) PostUpdatePodSandbox(ctx context.Context, req *api.PostUpdatePodSandboxRequest) error {
	return a.relay.PostUpdatePodSandbox(ctx, req)
}

// StopPodSandbox relays a pod's stop, after the stop of its containers that
// plugins still see running. A plugin's failure never fails it.
func (a *Adaptation) StopPodSandbox(ctx context.Context, req *api.StopPodSandboxRequest) error {
	return a.relay.StopPodSandbox(ctx, req)
}

// RemovePodSandbox relays a pod's removal, after the stop and removal of its
// containers and the pod's stop, where plugins have not had them. A plugin's
// failure never fails it.
func (a *Adaptation) RemovePodSandbox(ctx context.Context, req *api.RemovePodSandboxRequest) error {
	return a.relay.RemovePodSandbox(ctx, req)
}

// CreateContainer relays a container's creation and returns the merged
// adjustment and updates, after validators approved them.
func (a *Adaptation) CreateContainer(ctx context.Context, req *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	return a.relay.CreateContainer(ctx, req)
}

// PostCreateContainer notifies plugins of a created container.
func (a *Adaptation) PostCreateContainer(ctx context.Context, req *api.PostCreateContainerRequest) error {
	return a.relay.PostCreateContainer(ctx, req)
}

// StartContainer relays a container's start.
func (a *Adaptation) StartContainer(ctx context.Context, req *api.StartContainerRequest) error {
	return a.relay.StartContainer(ctx, req)
}

// PostStartContainer notifies plugins of a started container.
func (a *Adaptation) PostStartContainer(ctx context.Context, req *api.PostStartContainerRequest) error {
	return a.relay.PostStartContainer(ctx, req)
}

// UpdateContainer relays a container's resource update and returns the
// merged updates; the updated container's own entry comes last.
func (a *Adaptation) UpdateContainer(ctx context.Context, req *api.UpdateContainerRequest) (*api.UpdateContainerResponse, error) {
	return a.relay.UpdateContainer(ctx, req)
}

// PostUpdateContainer notifies plugins of a container's completed update.
func (a *Adaptation) PostUpdateContainer(ctx context.Context, req *api.PostUpdateContainerRequest) error {
	return a.relay.PostUpdateContainer(ctx, req)
}

// StopContainer relays a container's stop and returns plugins' updates to
// other containers. A failing plugin never fails it.
func (a *Adaptation) StopContainer(ctx context.Context, req *api.StopContainerRequest) (*api.StopContainerResponse, error) {
	return a.relay.StopContainer(ctx, req)
}

// RemoveContainer relays a container's removal, after its stop where
// plugins have not had it. A plugin's failure never fails it.
func (a *Adaptation) RemoveContainer(ctx context.Context, req *api.RemoveContainerRequest) error {
	return a.relay.RemoveContainer(ctx, req)
}
