// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"context"

	"github.com/containerd/ttrpc"
)

// PluginServiceName is the ttrpc name of the Plugin service on the wire.
const PluginServiceName = "nri.pkg.api.v1alpha1.Plugin"

// ServiceDesc builds the Plugin service for h. A Legacy config leaves out the
// nine methods v0.11.0 did not have, and NoStateChange leaves out StateChange,
// so the ttrpc server itself answers Unimplemented ("method X") for them,
// exactly as the server of a plugin built without them does. Handler methods
// answer the same when called in-process, but here the runtime under test
// sees the real server's reply, not ours.
func ServiceDesc(h *Handler) *ttrpc.ServiceDesc {
	methods := make(map[string]ttrpc.Method, 18)
	add := func(name string, m ttrpc.Method) { methods[name] = m }

	add("Configure", method(h.Configure))
	add("Synchronize", method(h.Synchronize))
	add("Shutdown", method(h.Shutdown))
	add("UpdatePodSandbox", method(h.UpdatePodSandbox))
	add("CreateContainer", method(h.CreateContainer))
	add("UpdateContainer", method(h.UpdateContainer))
	add("StopContainer", method(h.StopContainer))
	add("ValidateContainerAdjustment", method(h.ValidateContainerAdjustment))
	if !h.cfg.NoStateChange && !h.cfg.v1beta1() {
		add("StateChange", method(h.StateChange))
	}
	if !h.cfg.Legacy {
		add("RunPodSandbox", method(h.RunPodSandbox))
		add("PostUpdatePodSandbox", method(h.PostUpdatePodSandbox))
		add("StopPodSandbox", method(h.StopPodSandbox))
		add("RemovePodSandbox", method(h.RemovePodSandbox))
		add("PostCreateContainer", method(h.PostCreateContainer))
		add("StartContainer", method(h.StartContainer))
		add("PostStartContainer", method(h.PostStartContainer))
		add("PostUpdateContainer", method(h.PostUpdateContainer))
		add("RemoveContainer", method(h.RemoveContainer))
	}
	return &ttrpc.ServiceDesc{Methods: methods}
}

// method adapts a typed handler method to ttrpc's untyped one.
func method[Req any, PReq interface{ *Req }, Resp any](fn func(context.Context, PReq) (Resp, error)) ttrpc.Method {
	return func(ctx context.Context, unmarshal func(any) error) (any, error) {
		req := PReq(new(Req))
		if err := unmarshal(req); err != nil {
			return nil, err
		}
		return fn(ctx, req)
	}
}

// registerPluginService registers h's Plugin service on srv.
func registerPluginService(srv *ttrpc.Server, h *Handler) {
	desc := ServiceDesc(h)
	if h.cfg.InvalidUTF8 != "" {
		desc = sentVerbatim(desc)
	}
	srv.RegisterService(h.cfg.pluginServiceName(), desc)
}
