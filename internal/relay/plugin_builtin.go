// SPDX-License-Identifier: Apache-2.0

// Built-in plugins (BuiltinPlugin), called in process.

package relay

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/panics"
)

func (r *Relay) startBuiltins(ctx context.Context) {
	for _, b := range r.cfg.Builtins {
		r.registry.reserve(api.PluginID(b.Index, b.Name), nri.Builtin)
		p := r.newPlugin(b.Index, b.Name, nri.Builtin, newInProcess(b.Handler), inProcessConn{})
		p.config = b.Config
		p.rollout.filter = b.Filter
		r.joinFailed(ctx, nri.Builtin, 0, r.handshake(ctx, p))
	}
}

// inProcessConn is the connection of an in-process plugin: nothing to lose
// or close.
type inProcessConn struct{}

func (inProcessConn) Lost() <-chan struct{}           { return nil }
func (inProcessConn) Close()                          {}
func (inProcessConn) Stop(context.Context) error      { return nil }
func (inProcessConn) PID() int                        { return 0 }
func (inProcessConn) ExitStatus(time.Duration) string { return "" }
func (inProcessConn) Output() []nri.OutputLine        { return nil }

// inProcess calls an in-process handler as if it were remote: on a copy of
// the request, bounded by the call's deadline, and with a panic turned into
// an error, so a built-in plugin is held to the same rules as the others.
type inProcess struct {
	h api.PluginService
	// running holds one slot while a handler runs. A handler that ignores
	// its deadline keeps the slot after its call has timed out, so the next
	// request waits for it (and times out) instead of running beside it.
	running chan struct{}
}

func newInProcess(h api.PluginService) inProcess {
	return inProcess{h: h, running: make(chan struct{}, 1)}
}

// callHandler is fn, with a panic in it as its error.
func callHandler[Req, Rsp any](ctx context.Context, fn func(context.Context, Req) (Rsp, error), req Req) (rsp Rsp, err error) {
	defer panics.Recover(&err)
	return fn(ctx, req)
}

func callInProcess[Req proto.Message, Rsp any](ctx context.Context, running chan struct{}, fn func(context.Context, Req) (Rsp, error), req Req) (Rsp, error) {
	type result struct {
		rsp Rsp
		err error
	}
	var none Rsp
	if err := context.Cause(ctx); err != nil {
		return none, err
	}
	select {
	case running <- struct{}{}:
	case <-ctx.Done():
		return none, fmt.Errorf("an earlier call is still running: %w", context.Cause(ctx))
	}
	done := make(chan result, 1)
	req = proto.Clone(req).(Req)
	go func() {
		var r result
		defer func() {
			<-running
			done <- r
		}()
		r.rsp, r.err = callHandler(ctx, fn, req)
	}()
	select {
	case r := <-done:
		if r.err == nil {
			r.err = checkInProcessReply(r.rsp)
		}
		return r.rsp, r.err
	case <-ctx.Done():
		return none, context.Cause(ctx)
	}
}

func (p inProcess) Configure(ctx context.Context, r *api.ConfigureRequest) (*api.ConfigureResponse, error) {
	return callInProcess(ctx, p.running, p.h.Configure, r)
}

func (p inProcess) Synchronize(ctx context.Context, r *api.SynchronizeRequest) (*api.SynchronizeResponse, error) {
	return callInProcess(ctx, p.running, p.h.Synchronize, r)
}

func (p inProcess) Shutdown(ctx context.Context, r *api.ShutdownRequest) (*api.Empty, error) {
	return callInProcess(ctx, p.running, p.h.Shutdown, r)
}

func (p inProcess) RunPodSandbox(ctx context.Context, r *api.RunPodSandboxRequest) (*api.RunPodSandboxResponse, error) {
	return callInProcess(ctx, p.running, p.h.RunPodSandbox, r)
}

func (p inProcess) UpdatePodSandbox(ctx context.Context, r *api.UpdatePodSandboxRequest) (*api.UpdatePodSandboxResponse, error) {
	return callInProcess(ctx, p.running, p.h.UpdatePodSandbox, r)
}

func (p inProcess) PostUpdatePodSandbox(ctx context.Context, r *api.PostUpdatePodSandboxRequest) (*api.PostUpdatePodSandboxResponse, error) {
	return callInProcess(ctx, p.running, p.h.PostUpdatePodSandbox, r)
}

func (p inProcess) StopPodSandbox(ctx context.Context, r *api.StopPodSandboxRequest) (*api.StopPodSandboxResponse, error) {
	return callInProcess(ctx, p.running, p.h.StopPodSandbox, r)
}

func (p inProcess) RemovePodSandbox(ctx context.Context, r *api.RemovePodSandboxRequest) (*api.RemovePodSandboxResponse, error) {
	return callInProcess(ctx, p.running, p.h.RemovePodSandbox, r)
}

func (p inProcess) CreateContainer(ctx context.Context, r *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	return callInProcess(ctx, p.running, p.h.CreateContainer, r)
}

func (p inProcess) PostCreateContainer(ctx context.Context, r *api.PostCreateContainerRequest) (*api.PostCreateContainerResponse, error) {
	return callInProcess(ctx, p.running, p.h.PostCreateContainer, r)
}

func (p inProcess) StartContainer(ctx context.Context, r *api.StartContainerRequest) (*api.StartContainerResponse, error) {
	return callInProcess(ctx, p.running, p.h.StartContainer, r)
}

func (p inProcess) PostStartContainer(ctx context.Context, r *api.PostStartContainerRequest) (*api.PostStartContainerResponse, error) {
	return callInProcess(ctx, p.running, p.h.PostStartContainer, r)
}

func (p inProcess) UpdateContainer(ctx context.Context, r *api.UpdateContainerRequest) (*api.UpdateContainerResponse, error) {
	return callInProcess(ctx, p.running, p.h.UpdateContainer, r)
}

func (p inProcess) PostUpdateContainer(ctx context.Context, r *api.PostUpdateContainerRequest) (*api.PostUpdateContainerResponse, error) {
	return callInProcess(ctx, p.running, p.h.PostUpdateContainer, r)
}

func (p inProcess) StopContainer(ctx context.Context, r *api.StopContainerRequest) (*api.StopContainerResponse, error) {
	return callInProcess(ctx, p.running, p.h.StopContainer, r)
}

func (p inProcess) RemoveContainer(ctx context.Context, r *api.RemoveContainerRequest) (*api.RemoveContainerResponse, error) {
	return callInProcess(ctx, p.running, p.h.RemoveContainer, r)
}

func (p inProcess) StateChange(ctx context.Context, r *api.StateChangeEvent) (*api.Empty, error) {
	return callInProcess(ctx, p.running, p.h.StateChange, r)
}

func (p inProcess) ValidateContainerAdjustment(ctx context.Context, r *api.ValidateContainerAdjustmentRequest) (*api.ValidateContainerAdjustmentResponse, error) {
	return callInProcess(ctx, p.running, p.h.ValidateContainerAdjustment, r)
}
