// SPDX-License-Identifier: Apache-2.0

//go:build wasip1

// Command wasm-legacy is an NRI test peer plugin built on the reference's
// WASM guest API as released in github.com/containerd/nri v0.11.0, before the
// dedicated lifecycle calls: it exports only Configure, Synchronize,
// Shutdown, CreateContainer, UpdateContainer, StopContainer,
// UpdatePodSandbox, StateChange and ValidateContainerAdjustment, and takes
// the other nine events through StateChange. It reports every request
// through the host's log function, as ../wasm does. See ../README.md.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/containerd/nri/pkg/api"
)

// apiVersion is the version of the reference module this guest is built on.
const apiVersion = "v0.11.0"

func main() {}

func init() { api.RegisterPlugin(&plugin{}) }

// plugin implements the v0.11.0 guest API's Plugin interface.
type plugin struct {
	annotation [2]string // CreateContainer adds it when [0] != ""
	fail       map[string]bool
}

var _ api.Plugin = (*plugin)(nil)

// record is one request as reported to the host's log, as JSON.
type record struct {
	Event     string `json:"event"`
	RPC       string `json:"rpc"`
	Pod       string `json:"pod"`
	Container string `json:"container"`
	API       string `json:"api"`
	Config    string `json:"config,omitempty"`
	Action    string `json:"action,omitempty"`
}

var host = api.NewHostFunctions()

func (p *plugin) handle(rpc, event string, pod *api.PodSandbox, ctr *api.Container) error {
	r := &record{Event: event, RPC: rpc, Pod: pod.GetId(), Container: ctr.GetId(), API: apiVersion}
	if p.fail[rpc] {
		r.Action = "fail"
	}
	msg, _ := json.Marshal(r)
	_, _ = host.Log(context.Background(), &api.LogRequest{Msg: string(msg), Level: api.LogRequest_LEVEL_INFO})
	if r.Action == "fail" {
		return fmt.Errorf("wasm legacy guest: %s failed as configured", rpc)
	}
	return nil
}

// Configure takes "annotation=KEY=VALUE" and "fail=Handler,..." lines.
func (p *plugin) Configure(_ context.Context, req *api.ConfigureRequest) (*api.ConfigureResponse, error) {
	p.fail = map[string]bool{}
	for _, line := range strings.Split(req.GetConfig(), "\n") {
		key, value, _ := strings.Cut(strings.TrimSpace(line), "=")
		switch key {
		case "annotation":
			k, v, _ := strings.Cut(value, "=")
			p.annotation = [2]string{k, v}
		case "fail":
			for _, h := range strings.Split(value, ",") {
				p.fail[strings.TrimSpace(h)] = true
			}
		}
	}
	if err := p.handle("Configure", "Configure", nil, nil); err != nil {
		return nil, err
	}
	events, _ := api.ParseEventMask("all")
	return &api.ConfigureResponse{Events: int32(events)}, nil
}

func (p *plugin) Synchronize(context.Context, *api.SynchronizeRequest) (*api.SynchronizeResponse, error) {
	return &api.SynchronizeResponse{}, p.handle("Synchronize", "Synchronize", nil, nil)
}

func (p *plugin) Shutdown(context.Context, *api.Empty) (*api.Empty, error) {
	return &api.Empty{}, p.handle("Shutdown", "Shutdown", nil, nil)
}

func (p *plugin) CreateContainer(_ context.Context, req *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	if err := p.handle("CreateContainer", "CreateContainer", req.GetPod(), req.GetContainer()); err != nil {
		return nil, err
	}
	adjust := &api.ContainerAdjustment{}
	if p.annotation[0] != "" {
		adjust.AddAnnotation(p.annotation[0], p.annotation[1])
	}
	return &api.CreateContainerResponse{Adjust: adjust}, nil
}

func (p *plugin) UpdateContainer(_ context.Context, req *api.UpdateContainerRequest) (*api.UpdateContainerResponse, error) {
	return &api.UpdateContainerResponse{}, p.handle("UpdateContainer", "UpdateContainer", req.GetPod(), req.GetContainer())
}

func (p *plugin) StopContainer(_ context.Context, req *api.StopContainerRequest) (*api.StopContainerResponse, error) {
	return &api.StopContainerResponse{}, p.handle("StopContainer", "StopContainer", req.GetPod(), req.GetContainer())
}

func (p *plugin) UpdatePodSandbox(_ context.Context, req *api.UpdatePodSandboxRequest) (*api.UpdatePodSandboxResponse, error) {
	return &api.UpdatePodSandboxResponse{}, p.handle("UpdatePodSandbox", "UpdatePodSandbox", req.GetPod(), nil)
}

func (p *plugin) StateChange(_ context.Context, req *api.StateChangeEvent) (*api.Empty, error) {
	return &api.Empty{}, p.handle("StateChange", eventName(req.GetEvent()), req.GetPod(), req.GetContainer())
}

func (p *plugin) ValidateContainerAdjustment(_ context.Context, req *api.ValidateContainerAdjustmentRequest) (*api.ValidateContainerAdjustmentResponse, error) {
	return &api.ValidateContainerAdjustmentResponse{}, p.handle("ValidateContainerAdjustment", "ValidateContainerAdjustment", req.GetPod(), req.GetContainer())
}

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
