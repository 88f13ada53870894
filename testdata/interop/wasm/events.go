// SPDX-License-Identifier: Apache-2.0

//go:build wasip1

package main

import "github.com/containerd/nri/pkg/api"

// eventNames are the handler names of the events StateChange carries.
var eventNames = map[api.Event]string{
	api.Event_RUN_POD_SANDBOX:         "RunPodSandbox",
	api.Event_STOP_POD_SANDBOX:        "StopPodSandbox",
	api.Event_REMOVE_POD_SANDBOX:      "RemovePodSandbox",
	api.Event_POST_UPDATE_POD_SANDBOX: "PostUpdatePodSandbox",
	api.Event_CREATE_CONTAINER:        "CreateContainer",
	api.Event_POST_CREATE_CONTAINER:   "PostCreateContainer",
	api.Event_START_CONTAINER:         "StartContainer",
	api.Event_POST_START_CONTAINER:    "PostStartContainer",
	api.Event_UPDATE_CONTAINER:        "UpdateContainer",
	api.Event_POST_UPDATE_CONTAINER:   "PostUpdateContainer",
	api.Event_STOP_CONTAINER:          "StopContainer",
	api.Event_REMOVE_CONTAINER:        "RemoveContainer",
	api.Event_UPDATE_POD_SANDBOX:      "UpdatePodSandbox",
}

func eventName(e api.Event) string {
	if n, ok := eventNames[e]; ok {
		return n
	}
	return e.String()
}
