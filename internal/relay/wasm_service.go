// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

// Serving the Plugin service by calling a WASM guest's exports.

package relay

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/utf8check"
	"github.com/nrikit/nrikit/internal/wasmhost"
)

// wasmService serves the Plugin service by calling a WASM guest's exports.
// A missing export answers Unimplemented, as a socket plugin's ttrpc server
// does for a method it lacks, so that an older guest gets the nine events
// through StateChange by the same fallback, and is recorded as deprecated.
type wasmService struct{ g *wasmhost.Guest }

// callGuest encodes req, has the guest answer it, and decodes the answer.
func callGuest[Rsp any, P interface {
	*Rsp
	proto.Message
}](ctx context.Context, g *wasmhost.Guest, export string, req proto.Message) (P, error) {
	if !g.Has(export) {
		return nil, status.Errorf(codes.Unimplemented, "WASM plugin does not export %s", export)
	}
	in, err := marshal(req)
	if err != nil {
		return nil, fmt.Errorf("nrikit: encode request for %s: %w", export, err)
	}
	out, err := runGuest(ctx, g, export, in)
	if err != nil {
		return nil, err
	}
	rsp := P(new(Rsp))
	if err := proto.Unmarshal(out, rsp); err != nil {
		if utf8check.IsDecodeError(err) {
			if named := utf8check.Check("reply", out, rsp.ProtoReflect().Descriptor()); named != nil {
				return nil, named
			}
		}
		return nil, fmt.Errorf("nrikit: undecodable answer of %s: %w", export, err)
	}
	return rsp, nil
}

// runGuest runs one guest call to the call's own deadline, not to the
// caller's: stopping a guest mid-call kills it, so a caller that gives up
// early gets its answer at once while the guest finishes on its own time
// (the next call waits for it).
func runGuest(ctx context.Context, g *wasmhost.Guest, export string, in []byte) ([]byte, error) {
	gctx, cancel := context.WithCancel(ctx)
	if d, ok := ownDeadlineOf(ctx); ok {
		gctx, cancel = context.WithDeadline(context.WithoutCancel(ctx), d)
	}
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer cancel()
		out, err := g.Call(gctx, export, in)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		return r.out, guestError(r.err)
	case <-ctx.Done():
	}
	if d, ok := ownDeadlineOf(ctx); ok && !time.Now().Before(d) {
		// The call's own deadline: the guest is being stopped, which is
		// prompt. Its end, and its instance's, are then known to the policy.
		r := <-done
		return r.out, guestError(r.err)
	}
	return nil, context.Cause(ctx)
}

// guestError marks a call that ended the guest's instance as a lost plugin.
func guestError(err error) error {
	var crash *wasmhost.CrashError
	if errors.As(err, &crash) || errors.Is(err, wasmhost.ErrDead) {
		return &lostError{err}
	}
	return err
}

func (s wasmService) Configure(ctx context.Context, r *api.ConfigureRequest) (*api.ConfigureResponse, error) {
	return callGuest[api.ConfigureResponse](ctx, s.g, "plugin_configure", r)
}

func (s wasmService) Synchronize(ctx context.Context, r *api.SynchronizeRequest) (*api.SynchronizeResponse, error) {
	return callGuest[api.SynchronizeResponse](ctx, s.g, "plugin_synchronize", r)
}

func (s wasmService) Shutdown(ctx context.Context, r *api.ShutdownRequest) (*api.Empty, error) {
	return callGuest[api.Empty](ctx, s.g, "plugin_shutdown", r)
}

func (s wasmService) RunPodSandbox(ctx context.Context, r *api.RunPodSandboxRequest) (*api.RunPodSandboxResponse, error) {
	return callGuest[api.RunPodSandboxResponse](ctx, s.g, "plugin_run_pod_sandbox", r)
}

func (s wasmService) UpdatePodSandbox(ctx context.Context, r *api.UpdatePodSandboxRequest) (*api.UpdatePodSandboxResponse, error) {
	return callGuest[api.UpdatePodSandboxResponse](ctx, s.g, "plugin_update_pod_sandbox", r)
}

func (s wasmService) PostUpdatePodSandbox(ctx context.Context, r *api.PostUpdatePodSandboxRequest) (*api.PostUpdatePodSandboxResponse, error) {
	return callGuest[api.PostUpdatePodSandboxResponse](ctx, s.g, "plugin_post_update_pod_sandbox", r)
}

func (s wasmService) StopPodSandbox(ctx context.Context, r *api.StopPodSandboxRequest) (*api.StopPodSandboxResponse, error) {
	return callGuest[api.StopPodSandboxResponse](ctx, s.g, "plugin_stop_pod_sandbox", r)
}

func (s wasmService) RemovePodSandbox(ctx context.Context, r *api.RemovePodSandboxRequest) (*api.RemovePodSandboxResponse, error) {
	return callGuest[api.RemovePodSandboxResponse](ctx, s.g, "plugin_remove_pod_sandbox", r)
}

func (s wasmService) CreateContainer(ctx context.Context, r *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	return callGuest[api.CreateContainerResponse](ctx, s.g, "plugin_create_container", r)
}

func (s wasmService) PostCreateContainer(ctx context.Context, r *api.PostCreateContainerRequest) (*api.PostCreateContainerResponse, error) {
	return callGuest[api.PostCreateContainerResponse](ctx, s.g, "plugin_post_create_container", r)
}

func (s wasmService) StartContainer(ctx context.Context, r *api.StartContainerRequest) (*api.StartContainerResponse, error) {
	return callGuest[api.StartContainerResponse](ctx, s.g, "plugin_start_container", r)
}

func (s wasmService) PostStartContainer(ctx context.Context, r *api.PostStartContainerRequest) (*api.PostStartContainerResponse, error) {
	return callGuest[api.PostStartContainerResponse](ctx, s.g, "plugin_post_start_container", r)
}

func (s wasmService) UpdateContainer(ctx context.Context, r *api.UpdateContainerRequest) (*api.UpdateContainerResponse, error) {
	return callGuest[api.UpdateContainerResponse](ctx, s.g, "plugin_update_container", r)
}

func (s wasmService) PostUpdateContainer(ctx context.Context, r *api.PostUpdateContainerRequest) (*api.PostUpdateContainerResponse, error) {
	return callGuest[api.PostUpdateContainerResponse](ctx, s.g, "plugin_post_update_container", r)
}

func (s wasmService) StopContainer(ctx context.Context, r *api.StopContainerRequest) (*api.StopContainerResponse, error) {
	return callGuest[api.StopContainerResponse](ctx, s.g, "plugin_stop_container", r)
}

func (s wasmService) RemoveContainer(ctx context.Context, r *api.RemoveContainerRequest) (*api.RemoveContainerResponse, error) {
	return callGuest[api.RemoveContainerResponse](ctx, s.g, "plugin_remove_container", r)
}

func (s wasmService) StateChange(ctx context.Context, r *api.StateChangeEvent) (*api.Empty, error) {
	return callGuest[api.Empty](ctx, s.g, "plugin_state_change", r)
}

func (s wasmService) ValidateContainerAdjustment(ctx context.Context, r *api.ValidateContainerAdjustmentRequest) (*api.ValidateContainerAdjustmentResponse, error) {
	return callGuest[api.ValidateContainerAdjustmentResponse](ctx, s.g, "plugin_validate_container_adjustment", r)
}
