// SPDX-License-Identifier: Apache-2.0

package api

import "context"

// PluginBase is a PluginService that takes part in nothing: embed it in an
// in-process plugin (adaptation.BuiltinPlugin's Handler) and implement only
// the methods of the events the plugin takes. Every method it provides
// succeeds with an empty response: no adjustment, no updates, no
// evictions, and validation accepts.
//
// Configure answers with Events as the subscription; the zero value
// subscribes to every event (mask 0), so set Events to the events the
// plugin implements to spare it the calls it would answer with nothing:
//
//	type quota struct{ api.PluginBase }
//	h := &quota{api.PluginBase{Events: api.MaskOf(api.Event_CREATE_CONTAINER)}}
type PluginBase struct {
	// Events is the subscription Configure returns (0: every event).
	Events EventMask
}

var _ PluginService = PluginBase{}

// Configure subscribes to b.Events.
func (b PluginBase) Configure(context.Context, *ConfigureRequest) (*ConfigureResponse, error) {
	return &ConfigureResponse{Events: int32(b.Events)}, nil
}

// Synchronize asks for no updates.
func (PluginBase) Synchronize(context.Context, *SynchronizeRequest) (*SynchronizeResponse, error) {
	return &SynchronizeResponse{}, nil
}

// Shutdown does nothing.
func (PluginBase) Shutdown(context.Context, *ShutdownRequest) (*Empty, error) {
	return &Empty{}, nil
}

// RunPodSandbox does nothing.
func (PluginBase) RunPodSandbox(context.Context, *RunPodSandboxRequest) (*RunPodSandboxResponse, error) {
	return &RunPodSandboxResponse{}, nil
}

// UpdatePodSandbox does nothing.
func (PluginBase) UpdatePodSandbox(context.Context, *UpdatePodSandboxRequest) (*UpdatePodSandboxResponse, error) {
	return &UpdatePodSandboxResponse{}, nil
}

// PostUpdatePodSandbox does nothing.
func (PluginBase) PostUpdatePodSandbox(context.Context, *PostUpdatePodSandboxRequest) (*PostUpdatePodSandboxResponse, error) {
	return &PostUpdatePodSandboxResponse{}, nil
}

// StopPodSandbox does nothing.
func (PluginBase) StopPodSandbox(context.Context, *StopPodSandboxRequest) (*StopPodSandboxResponse, error) {
	return &StopPodSandboxResponse{}, nil
}

// RemovePodSandbox does nothing.
func (PluginBase) RemovePodSandbox(context.Context, *RemovePodSandboxRequest) (*RemovePodSandboxResponse, error) {
	return &RemovePodSandboxResponse{}, nil
}

// CreateContainer asks for no adjustment, updates or evictions.
func (PluginBase) CreateContainer(context.Context, *CreateContainerRequest) (*CreateContainerResponse, error) {
	return &CreateContainerResponse{}, nil
}

// PostCreateContainer does nothing.
func (PluginBase) PostCreateContainer(context.Context, *PostCreateContainerRequest) (*PostCreateContainerResponse, error) {
	return &PostCreateContainerResponse{}, nil
}

// StartContainer does nothing.
func (PluginBase) StartContainer(context.Context, *StartContainerRequest) (*StartContainerResponse, error) {
	return &StartContainerResponse{}, nil
}

// PostStartContainer does nothing.
func (PluginBase) PostStartContainer(context.Context, *PostStartContainerRequest) (*PostStartContainerResponse, error) {
	return &PostStartContainerResponse{}, nil
}

// UpdateContainer asks for no updates or evictions.
func (PluginBase) UpdateContainer(context.Context, *UpdateContainerRequest) (*UpdateContainerResponse, error) {
	return &UpdateContainerResponse{}, nil
}

// PostUpdateContainer does nothing.
func (PluginBase) PostUpdateContainer(context.Context, *PostUpdateContainerRequest) (*PostUpdateContainerResponse, error) {
	return &PostUpdateContainerResponse{}, nil
}

// StopContainer asks for no updates.
func (PluginBase) StopContainer(context.Context, *StopContainerRequest) (*StopContainerResponse, error) {
	return &StopContainerResponse{}, nil
}

// RemoveContainer does nothing.
func (PluginBase) RemoveContainer(context.Context, *RemoveContainerRequest) (*RemoveContainerResponse, error) {
	return &RemoveContainerResponse{}, nil
}

// StateChange does nothing.
func (PluginBase) StateChange(context.Context, *StateChangeEvent) (*Empty, error) {
	return &Empty{}, nil
}

// ValidateContainerAdjustment accepts.
func (PluginBase) ValidateContainerAdjustment(context.Context, *ValidateContainerAdjustmentRequest) (*ValidateContainerAdjustmentResponse, error) {
	return &ValidateContainerAdjustmentResponse{}, nil
}
