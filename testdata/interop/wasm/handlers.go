// SPDX-License-Identifier: Apache-2.0

//go:build wasip1

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/containerd/nri/pkg/api"
)

// plugin implements the guest API's Plugin interface. A WASM guest runs one
// call at a time, so it needs no locking.
type plugin struct {
	cfg *settings
}

var _ api.Plugin = (*plugin)(nil)

// record is one request as the guest reports it to the host's log, as JSON.
type record struct {
	Event      string `json:"event"`
	RPC        string `json:"rpc"`
	Pod        string `json:"pod"`
	Container  string `json:"container"`
	API        string `json:"api"`
	Config     string `json:"config,omitempty"`
	Runtime    string `json:"runtime,omitempty"`
	Pods       int    `json:"pods,omitempty"`
	Containers int    `json:"containers,omitempty"`
	Action     string `json:"action,omitempty"`
	Error      string `json:"error,omitempty"`
}

var host = api.NewHostFunctions()

func (p *plugin) report(r *record) {
	r.API = apiVersion
	msg, _ := json.Marshal(r)
	_, _ = host.Log(context.Background(), &api.LogRequest{Msg: string(msg), Level: api.LogRequest_LEVEL_INFO})
}

// handle reports a request, then misbehaves or fails if told to.
func (p *plugin) handle(rpc, event string, pod *api.PodSandbox, ctr *api.Container) error {
	r := &record{Event: event, RPC: rpc, Pod: pod.GetId(), Container: ctr.GetId(), Action: p.cfg.action(rpc)}
	p.report(r)
	return act(r.Action, rpc)
}

// Sinks the misbehaviours write to, so that the compiler keeps them.
var (
	spins uint64
	hoard [][]byte
)

func act(action, rpc string) error {
	switch action {
	case "fail":
		return fmt.Errorf("wasm guest: %s failed as configured", rpc)
	case "trap":
		runtime.Breakpoint() // the WebAssembly "unreachable" instruction
	case "panic":
		panic("wasm guest: " + rpc + " panics as configured")
	case "exit":
		os.Exit(3)
	case "loop":
		for {
			spins++
		}
	case "sleep":
		time.Sleep(time.Hour)
	case "grow":
		for {
			b := make([]byte, 8<<20)
			b[0] = 1
			hoard = append(hoard, b)
		}
	case "logflood":
		// The host's log function, as fast as it answers, with long
		// messages that are not valid UTF-8 once cut.
		msg := &api.LogRequest{Msg: strings.Repeat("flood é", 7000), Level: api.LogRequest_LEVEL_ERROR}
		for {
			_, _ = host.Log(context.Background(), msg)
		}
	case "spew":
		// stdout and stderr, in lines and in one endless line without a newline.
		line := []byte(strings.Repeat("spew\xff\r", 512) + "\n")
		endless := bytes.Repeat([]byte("x\r"), 32<<10)
		for i := 0; ; i++ {
			_, _ = os.Stderr.Write(line)
			_, _ = os.Stdout.Write(endless)
		}
	}
	return nil
}

func (p *plugin) Configure(_ context.Context, req *api.ConfigureRequest) (*api.ConfigureResponse, error) {
	r := &record{Event: "Configure", RPC: "Configure", Config: req.GetConfig(),
		Runtime: req.GetRuntimeName() + "/" + req.GetRuntimeVersion()}
	cfg, err := parseSettings(req.GetConfig())
	if err != nil {
		r.Error = err.Error()
		p.report(r)
		return nil, err
	}
	p.cfg = cfg
	r.Action = cfg.action("Configure")
	p.report(r)
	if err := act(r.Action, "Configure"); err != nil {
		return nil, err
	}
	events, _ := api.ParseEventMask(cfg.events)
	if cfg.events == "" {
		events, _ = api.ParseEventMask("all")
	}
	return &api.ConfigureResponse{Events: int32(events), FailurePolicy: cfg.policy}, nil
}

func (p *plugin) Synchronize(_ context.Context, req *api.SynchronizeRequest) (*api.SynchronizeResponse, error) {
	r := &record{Event: "Synchronize", RPC: "Synchronize", Pods: len(req.GetPods()),
		Containers: len(req.GetContainers()), Action: p.cfg.action("Synchronize")}
	p.report(r)
	return &api.SynchronizeResponse{}, act(r.Action, "Synchronize")
}

func (p *plugin) Shutdown(context.Context, *api.Empty) (*api.Empty, error) {
	return &api.Empty{}, p.handle("Shutdown", "Shutdown", nil, nil)
}

func (p *plugin) RunPodSandbox(_ context.Context, req *api.RunPodSandboxRequest) (*api.RunPodSandboxResponse, error) {
	return &api.RunPodSandboxResponse{}, p.handle("RunPodSandbox", "RunPodSandbox", req.GetPod(), nil)
}

func (p *plugin) UpdatePodSandbox(_ context.Context, req *api.UpdatePodSandboxRequest) (*api.UpdatePodSandboxResponse, error) {
	return &api.UpdatePodSandboxResponse{}, p.handle("UpdatePodSandbox", "UpdatePodSandbox", req.GetPod(), nil)
}

func (p *plugin) PostUpdatePodSandbox(_ context.Context, req *api.PostUpdatePodSandboxRequest) (*api.PostUpdatePodSandboxResponse, error) {
	return &api.PostUpdatePodSandboxResponse{}, p.handle("PostUpdatePodSandbox", "PostUpdatePodSandbox", req.GetPod(), nil)
}

func (p *plugin) StopPodSandbox(_ context.Context, req *api.StopPodSandboxRequest) (*api.StopPodSandboxResponse, error) {
	return &api.StopPodSandboxResponse{}, p.handle("StopPodSandbox", "StopPodSandbox", req.GetPod(), nil)
}

func (p *plugin) RemovePodSandbox(_ context.Context, req *api.RemovePodSandboxRequest) (*api.RemovePodSandboxResponse, error) {
	return &api.RemovePodSandboxResponse{}, p.handle("RemovePodSandbox", "RemovePodSandbox", req.GetPod(), nil)
}

func (p *plugin) CreateContainer(_ context.Context, req *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	if err := p.handle("CreateContainer", "CreateContainer", req.GetPod(), req.GetContainer()); err != nil {
		return nil, err
	}
	adjust := &api.ContainerAdjustment{}
	if kv := p.cfg.annotation; kv.Key != "" {
		adjust.AddAnnotation(kv.Key, kv.Value)
	}
	if kv := p.cfg.env; kv.Key != "" {
		adjust.AddEnv(kv.Key, kv.Value)
	}
	return &api.CreateContainerResponse{Adjust: adjust}, nil
}

func (p *plugin) PostCreateContainer(_ context.Context, req *api.PostCreateContainerRequest) (*api.PostCreateContainerResponse, error) {
	return &api.PostCreateContainerResponse{}, p.handle("PostCreateContainer", "PostCreateContainer", req.GetPod(), req.GetContainer())
}

func (p *plugin) StartContainer(_ context.Context, req *api.StartContainerRequest) (*api.StartContainerResponse, error) {
	return &api.StartContainerResponse{}, p.handle("StartContainer", "StartContainer", req.GetPod(), req.GetContainer())
}

func (p *plugin) PostStartContainer(_ context.Context, req *api.PostStartContainerRequest) (*api.PostStartContainerResponse, error) {
	return &api.PostStartContainerResponse{}, p.handle("PostStartContainer", "PostStartContainer", req.GetPod(), req.GetContainer())
}

func (p *plugin) UpdateContainer(_ context.Context, req *api.UpdateContainerRequest) (*api.UpdateContainerResponse, error) {
	return &api.UpdateContainerResponse{}, p.handle("UpdateContainer", "UpdateContainer", req.GetPod(), req.GetContainer())
}

func (p *plugin) PostUpdateContainer(_ context.Context, req *api.PostUpdateContainerRequest) (*api.PostUpdateContainerResponse, error) {
	return &api.PostUpdateContainerResponse{}, p.handle("PostUpdateContainer", "PostUpdateContainer", req.GetPod(), req.GetContainer())
}

func (p *plugin) StopContainer(_ context.Context, req *api.StopContainerRequest) (*api.StopContainerResponse, error) {
	return &api.StopContainerResponse{}, p.handle("StopContainer", "StopContainer", req.GetPod(), req.GetContainer())
}

func (p *plugin) RemoveContainer(_ context.Context, req *api.RemoveContainerRequest) (*api.RemoveContainerResponse, error) {
	return &api.RemoveContainerResponse{}, p.handle("RemoveContainer", "RemoveContainer", req.GetPod(), req.GetContainer())
}

// StateChange is how older runtimes sent nine of the events; a runtime that
// calls the dedicated exports never sends it to this guest.
func (p *plugin) StateChange(_ context.Context, req *api.StateChangeEvent) (*api.Empty, error) {
	return &api.Empty{}, p.handle("StateChange", eventName(req.GetEvent()), req.GetPod(), req.GetContainer())
}

func (p *plugin) ValidateContainerAdjustment(_ context.Context, req *api.ValidateContainerAdjustmentRequest) (*api.ValidateContainerAdjustmentResponse, error) {
	err := p.handle("ValidateContainerAdjustment", "ValidateContainerAdjustment", req.GetPod(), req.GetContainer())
	if err != nil {
		return &api.ValidateContainerAdjustmentResponse{Reject: true, Reason: err.Error()}, nil
	}
	return &api.ValidateContainerAdjustmentResponse{}, nil
}
