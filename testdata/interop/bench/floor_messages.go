// SPDX-License-Identifier: Apache-2.0

package main

import (
	refapi "github.com/containerd/nri/pkg/api"
	"google.golang.org/protobuf/proto"
)

// The floor's messages: each event's request and response types, in the
// reference's api, and its subscription bit.

func (e event) containerEvent() bool { return e != evRunPod && e != evStopPod && e != evRemovePod }

// subscription is the event's bit in a plugin's mask.
func (e event) subscription() refapi.Event {
	switch e {
	case evRunPod:
		return refapi.Event_RUN_POD_SANDBOX
	case evCreate:
		return refapi.Event_CREATE_CONTAINER
	case evPostCreate:
		return refapi.Event_POST_CREATE_CONTAINER
	case evStart:
		return refapi.Event_START_CONTAINER
	case evPostStart:
		return refapi.Event_POST_START_CONTAINER
	case evUpdate:
		return refapi.Event_UPDATE_CONTAINER
	case evPostUpdate:
		return refapi.Event_POST_UPDATE_CONTAINER
	case evStopContainer:
		return refapi.Event_STOP_CONTAINER
	case evRemoveContainer:
		return refapi.Event_REMOVE_CONTAINER
	case evStopPod:
		return refapi.Event_STOP_POD_SANDBOX
	case evRemovePod:
		return refapi.Event_REMOVE_POD_SANDBOX
	}
	return refapi.Event_UNKNOWN
}

// newRequest is an empty request of the event's type.
func (e event) newRequest() proto.Message {
	switch e {
	case evRunPod:
		return &refapi.RunPodSandboxRequest{}
	case evCreate:
		return &refapi.CreateContainerRequest{}
	case evPostCreate:
		return &refapi.PostCreateContainerRequest{}
	case evStart:
		return &refapi.StartContainerRequest{}
	case evPostStart:
		return &refapi.PostStartContainerRequest{}
	case evUpdate:
		return &refapi.UpdateContainerRequest{}
	case evPostUpdate:
		return &refapi.PostUpdateContainerRequest{}
	case evStopContainer:
		return &refapi.StopContainerRequest{}
	case evRemoveContainer:
		return &refapi.RemoveContainerRequest{}
	case evStopPod:
		return &refapi.StopPodSandboxRequest{}
	case evRemovePod:
		return &refapi.RemovePodSandboxRequest{}
	}
	return nil
}

// newResponse is an empty response of the event's type, to decode into.
func (e event) newResponse() proto.Message {
	switch e {
	case evRunPod:
		return &refapi.RunPodSandboxResponse{}
	case evCreate:
		return &refapi.CreateContainerResponse{}
	case evPostCreate:
		return &refapi.PostCreateContainerResponse{}
	case evStart:
		return &refapi.StartContainerResponse{}
	case evPostStart:
		return &refapi.PostStartContainerResponse{}
	case evUpdate:
		return &refapi.UpdateContainerResponse{}
	case evPostUpdate:
		return &refapi.PostUpdateContainerResponse{}
	case evStopContainer:
		return &refapi.StopContainerResponse{}
	case evRemoveContainer:
		return &refapi.RemoveContainerResponse{}
	case evStopPod:
		return &refapi.StopPodSandboxResponse{}
	case evRemovePod:
		return &refapi.RemovePodSandboxResponse{}
	}
	return nil
}

// request is the event's request, built as the adaptations get it.
func (f *floorRuntime) request(ev event, p, c int) proto.Message {
	pod := f.d.wlPods[p]
	var ctr *refapi.Container
	if cs := f.d.wlCtrs[p]; c < len(cs) {
		ctr = cs[c]
	}
	switch ev {
	case evRunPod:
		return &refapi.RunPodSandboxRequest{Pod: pod}
	case evCreate:
		return &refapi.CreateContainerRequest{Pod: pod, Container: ctr}
	case evPostCreate:
		return &refapi.PostCreateContainerRequest{Pod: pod, Container: ctr}
	case evStart:
		return &refapi.StartContainerRequest{Pod: pod, Container: ctr}
	case evPostStart:
		return &refapi.PostStartContainerRequest{Pod: pod, Container: ctr}
	case evUpdate:
		return &refapi.UpdateContainerRequest{Pod: pod, Container: ctr, LinuxResources: ctr.GetLinux().GetResources()}
	case evPostUpdate:
		return &refapi.PostUpdateContainerRequest{Pod: pod, Container: ctr}
	case evStopContainer:
		return &refapi.StopContainerRequest{Pod: pod, Container: ctr}
	case evRemoveContainer:
		return &refapi.RemoveContainerRequest{Pod: pod, Container: ctr}
	case evStopPod:
		return &refapi.StopPodSandboxRequest{Pod: pod}
	case evRemovePod:
		return &refapi.RemovePodSandboxRequest{Pod: pod}
	}
	return nil
}
