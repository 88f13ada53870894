// SPDX-License-Identifier: Apache-2.0

// Observing every call to a plugin, as the wire sees it (Config.Observe).

package relay

import (
	"context"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

// Call is one RPC the relay made to a plugin, as Config.Observe sees it:
// the wire's view, where the StateChange fallback shows as a dedicated call
// answered Unimplemented followed by a StateChange.
type Call struct {
	Plugin   string // idx-name
	Method   string // the Plugin service method: "Synchronize", "CreateContainer", ...
	Request  proto.Message
	Response proto.Message // nil when Err is set
	Err      error
}

// observe wraps p's service so that the observer sees its calls; it is
// called before p's handshake, while no one else uses p.
func (r *Relay) observe(p *plugin) {
	if r.cfg.Observe != nil {
		p.svc = observedService{svc: p.svc, id: p.id, fn: r.cfg.Observe}
	}
}

// observedService reports every call of svc.
type observedService struct {
	svc api.PluginService
	id  string
	fn  func(Call)
}

func observeCall[Req, Rsp proto.Message](o observedService, ctx context.Context, method string, req Req, call func(context.Context, Req) (Rsp, error)) (Rsp, error) {
	rsp, err := call(ctx, req)
	c := Call{Plugin: o.id, Method: method, Request: readable(req), Err: err}
	if err == nil {
		c.Response = rsp
	}
	o.fn(c)
	return rsp, err
}

// readable returns m, or a decoded copy of it when it travels pre-encoded
// (event_outgoing.go), so that the observer can read its fields.
func readable(m proto.Message) proto.Message {
	if len(m.ProtoReflect().GetUnknown()) == 0 {
		return m
	}
	b, err := proto.Marshal(m)
	if err != nil {
		return m
	}
	c := m.ProtoReflect().New().Interface()
	if err := proto.Unmarshal(b, c); err != nil {
		return m
	}
	return c
}

func (o observedService) Configure(ctx context.Context, r *api.ConfigureRequest) (*api.ConfigureResponse, error) {
	return observeCall(o, ctx, "Configure", r, o.svc.Configure)
}

func (o observedService) Synchronize(ctx context.Context, r *api.SynchronizeRequest) (*api.SynchronizeResponse, error) {
	return observeCall(o, ctx, "Synchronize", r, o.svc.Synchronize)
}

func (o observedService) Shutdown(ctx context.Context, r *api.ShutdownRequest) (*api.Empty, error) {
	return observeCall(o, ctx, "Shutdown", r, o.svc.Shutdown)
}

func (o observedService) RunPodSandbox(ctx context.Context, r *api.RunPodSandboxRequest) (*api.RunPodSandboxResponse, error) {
	return observeCall(o, ctx, "RunPodSandbox", r, o.svc.RunPodSandbox)
}

func (o observedService) UpdatePodSandbox(ctx context.Context, r *api.UpdatePodSandboxRequest) (*api.UpdatePodSandboxResponse, error) {
	return observeCall(o, ctx, "UpdatePodSandbox", r, o.svc.UpdatePodSandbox)
}

func (o observedService) PostUpdatePodSandbox(ctx context.Context, r *api.PostUpdatePodSandboxRequest) (*api.PostUpdatePodSandboxResponse, error) {
	return observeCall(o, ctx, "PostUpdatePodSandbox", r, o.svc.PostUpdatePodSandbox)
}

func (o observedService) StopPodSandbox(ctx context.Context, r *api.StopPodSandboxRequest) (*api.StopPodSandboxResponse, error) {
	return observeCall(o, ctx, "StopPodSandbox", r, o.svc.StopPodSandbox)
}

func (o observedService) RemovePodSandbox(ctx context.Context, r *api.RemovePodSandboxRequest) (*api.RemovePodSandboxResponse, error) {
	return observeCall(o, ctx, "RemovePodSandbox", r, o.svc.RemovePodSandbox)
}

func (o observedService) CreateContainer(ctx context.Context, r *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	return observeCall(o, ctx, "CreateContainer", r, o.svc.CreateContainer)
}

func (o observedService) PostCreateContainer(ctx context.Context, r *api.PostCreateContainerRequest) (*api.PostCreateContainerResponse, error) {
	return observeCall(o, ctx, "PostCreateContainer", r, o.svc.PostCreateContainer)
}

func (o observedService) StartContainer(ctx context.Context, r *api.StartContainerRequest) (*api.StartContainerResponse, error) {
	return observeCall(o, ctx, "StartContainer", r, o.svc.StartContainer)
}

func (o observedService) PostStartContainer(ctx context.Context, r *api.PostStartContainerRequest) (*api.PostStartContainerResponse, error) {
	return observeCall(o, ctx, "PostStartContainer", r, o.svc.PostStartContainer)
}

func (o observedService) UpdateContainer(ctx context.Context, r *api.UpdateContainerRequest) (*api.UpdateContainerResponse, error) {
	return observeCall(o, ctx, "UpdateContainer", r, o.svc.UpdateContainer)
}

func (o observedService) PostUpdateContainer(ctx context.Context, r *api.PostUpdateContainerRequest) (*api.PostUpdateContainerResponse, error) {
	return observeCall(o, ctx, "PostUpdateContainer", r, o.svc.PostUpdateContainer)
}

func (o observedService) StopContainer(ctx context.Context, r *api.StopContainerRequest) (*api.StopContainerResponse, error) {
	return observeCall(o, ctx, "StopContainer", r, o.svc.StopContainer)
}

func (o observedService) RemoveContainer(ctx context.Context, r *api.RemoveContainerRequest) (*api.RemoveContainerResponse, error) {
	return observeCall(o, ctx, "RemoveContainer", r, o.svc.RemoveContainer)
}

func (o observedService) StateChange(ctx context.Context, r *api.StateChangeEvent) (*api.Empty, error) {
	return observeCall(o, ctx, "StateChange", r, o.svc.StateChange)
}

func (o observedService) ValidateContainerAdjustment(ctx context.Context, r *api.ValidateContainerAdjustmentRequest) (*api.ValidateContainerAdjustmentResponse, error) {
	return observeCall(o, ctx, "ValidateContainerAdjustment", r, o.svc.ValidateContainerAdjustment)
}
