// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// The conformance run's own plugin: another plugin that fails, after the
// plugins under test took part. It fails the CreateContainer of the
// container named doomedName (plugins ordered before it have adjusted it by
// then) and, as a validator, rejects the one named rejectedName (every
// plugin has adjusted it by then). It is not under test.

const (
	failerIndex = "99"
	failerName  = "nritest-failer"
	failerAbout = "nritest's own: fails the CreateContainer of \"" + doomedName + "\", rejects \"" + rejectedName + "\" as a validator; not under test"
)

// failerID is the plugin's "idx-name".
var failerID = api.PluginID(failerIndex, failerName)

// errScriptedFailure is the failer's error, as the report shows it.
var errScriptedFailure = errors.New("nritest-failer: scripted failure of another plugin")

// failerPlugin takes CreateContainer and ValidateContainerAdjustment; the
// embedded nil service stands for the events it does not take.
type failerPlugin struct{ api.PluginService }

func (f failerPlugin) builtin() adaptation.BuiltinPlugin {
	return adaptation.BuiltinPlugin{Index: failerIndex, Name: failerName, Handler: f}
}

func (failerPlugin) Configure(context.Context, *api.ConfigureRequest) (*api.ConfigureResponse, error) {
	return &api.ConfigureResponse{Events: int32(api.MaskOf(api.Event_CREATE_CONTAINER, api.Event_VALIDATE_CONTAINER_ADJUSTMENT))}, nil
}

func (failerPlugin) Synchronize(context.Context, *api.SynchronizeRequest) (*api.SynchronizeResponse, error) {
	return &api.SynchronizeResponse{}, nil
}

func (failerPlugin) Shutdown(context.Context, *api.ShutdownRequest) (*api.Empty, error) {
	return &api.Empty{}, nil
}

func (failerPlugin) CreateContainer(_ context.Context, req *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	if req.GetContainer().GetName() == doomedName {
		return nil, errScriptedFailure
	}
	return &api.CreateContainerResponse{}, nil
}

func (failerPlugin) ValidateContainerAdjustment(_ context.Context, req *api.ValidateContainerAdjustmentRequest) (*api.ValidateContainerAdjustmentResponse, error) {
	if req.GetContainer().GetName() == rejectedName {
		return &api.ValidateContainerAdjustmentResponse{Reject: true, Reason: "nritest-failer: scripted rejection"}, nil
	}
	return &api.ValidateContainerAdjustmentResponse{}, nil
}
