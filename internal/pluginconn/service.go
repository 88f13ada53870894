// SPDX-License-Identifier: Apache-2.0

// The Plugin service of one protocol revision, as the client calls it.

package pluginconn

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/nrikit/nrikit/api"
)

// method is one method of a revision's Plugin service, with what each call
// of it needs worked out once: the encoding of its names in a ttrpc.Request
// and the descriptor its reply's strings are checked against.
type method struct {
	name     string
	names    []byte // the Request's service and method fields
	envelope int    // len(names)
	reply    protoreflect.MessageDescriptor
}

// The methods of the Plugin service, as indices into a pluginMethods.
const (
	mConfigure = iota
	mSynchronize
	mShutdown
	mRunPodSandbox
	mUpdatePodSandbox
	mPostUpdatePodSandbox
	mStopPodSandbox
	mRemovePodSandbox
	mCreateContainer
	mPostCreateContainer
	mStartContainer
	mPostStartContainer
	mUpdateContainer
	mPostUpdateContainer
	mStopContainer
	mRemoveContainer
	mStateChange
	mValidateContainerAdjustment
	numMethods
)

var methodNames = [numMethods]string{
	"Configure", "Synchronize", "Shutdown",
	"RunPodSandbox", "UpdatePodSandbox", "PostUpdatePodSandbox", "StopPodSandbox", "RemovePodSandbox",
	"CreateContainer", "PostCreateContainer", "StartContainer", "PostStartContainer",
	"UpdateContainer", "PostUpdateContainer", "StopContainer", "RemoveContainer",
	"StateChange", "ValidateContainerAdjustment",
}

// pluginMethods are the methods of one revision's Plugin service.
type pluginMethods [numMethods]method

func newPluginMethods(service string) *pluginMethods {
	var ms pluginMethods
	for i, name := range methodNames {
		names := appendStringField(nil, requestService, service)
		names = appendStringField(names, requestMethod, name)
		ms[i] = method{name: name, names: names, envelope: len(names), reply: replyDescriptor("/" + service + "/" + name)}
	}
	return &ms
}

// pluginService is a plugin's Plugin service over a client, in one
// revision: an api.PluginService.
type pluginService struct {
	c           *client
	methods     *pluginMethods
	stateChange bool // the revision has StateChange
}

// callMethod makes one call and returns its reply, a new Rsp.
func callMethod[Rsp any, PR interface {
	*Rsp
	proto.Message
}](ctx context.Context, s pluginService, m int, req proto.Message) (PR, error) {
	rsp := PR(new(Rsp))
	if err := s.c.invoke(ctx, &s.methods[m], req, rsp); err != nil {
		return nil, err
	}
	return rsp, nil
}

func (s pluginService) Configure(ctx context.Context, req *api.ConfigureRequest) (*api.ConfigureResponse, error) {
	return callMethod[api.ConfigureResponse](ctx, s, mConfigure, req)
}

func (s pluginService) Synchronize(ctx context.Context, req *api.SynchronizeRequest) (*api.SynchronizeResponse, error) {
	return callMethod[api.SynchronizeResponse](ctx, s, mSynchronize, req)
}

func (s pluginService) Shutdown(ctx context.Context, req *api.ShutdownRequest) (*api.Empty, error) {
	return callMethod[api.Empty](ctx, s, mShutdown, req)
}

func (s pluginService) RunPodSandbox(ctx context.Context, req *api.RunPodSandboxRequest) (*api.RunPodSandboxResponse, error) {
	return callMethod[api.RunPodSandboxResponse](ctx, s, mRunPodSandbox, req)
}

func (s pluginService) UpdatePodSandbox(ctx context.Context, req *api.UpdatePodSandboxRequest) (*api.UpdatePodSandboxResponse, error) {
	return callMethod[api.UpdatePodSandboxResponse](ctx, s, mUpdatePodSandbox, req)
}

func (s pluginService) PostUpdatePodSandbox(ctx context.Context, req *api.PostUpdatePodSandboxRequest) (*api.PostUpdatePodSandboxResponse, error) {
	return callMethod[api.PostUpdatePodSandboxResponse](ctx, s, mPostUpdatePodSandbox, req)
}

func (s pluginService) StopPodSandbox(ctx context.Context, req *api.StopPodSandboxRequest) (*api.StopPodSandboxResponse, error) {
	return callMethod[api.StopPodSandboxResponse](ctx, s, mStopPodSandbox, req)
}

func (s pluginService) RemovePodSandbox(ctx context.Context, req *api.RemovePodSandboxRequest) (*api.RemovePodSandboxResponse, error) {
	return callMethod[api.RemovePodSandboxResponse](ctx, s, mRemovePodSandbox, req)
}

func (s pluginService) CreateContainer(ctx context.Context, req *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	return callMethod[api.CreateContainerResponse](ctx, s, mCreateContainer, req)
}

func (s pluginService) PostCreateContainer(ctx context.Context, req *api.PostCreateContainerRequest) (*api.PostCreateContainerResponse, error) {
	return callMethod[api.PostCreateContainerResponse](ctx, s, mPostCreateContainer, req)
}

func (s pluginService) StartContainer(ctx context.Context, req *api.StartContainerRequest) (*api.StartContainerResponse, error) {
	return callMethod[api.StartContainerResponse](ctx, s, mStartContainer, req)
}

func (s pluginService) PostStartContainer(ctx context.Context, req *api.PostStartContainerRequest) (*api.PostStartContainerResponse, error) {
	return callMethod[api.PostStartContainerResponse](ctx, s, mPostStartContainer, req)
}

func (s pluginService) UpdateContainer(ctx context.Context, req *api.UpdateContainerRequest) (*api.UpdateContainerResponse, error) {
	return callMethod[api.UpdateContainerResponse](ctx, s, mUpdateContainer, req)
}

func (s pluginService) PostUpdateContainer(ctx context.Context, req *api.PostUpdateContainerRequest) (*api.PostUpdateContainerResponse, error) {
	return callMethod[api.PostUpdateContainerResponse](ctx, s, mPostUpdateContainer, req)
}

func (s pluginService) StopContainer(ctx context.Context, req *api.StopContainerRequest) (*api.StopContainerResponse, error) {
	return callMethod[api.StopContainerResponse](ctx, s, mStopContainer, req)
}

func (s pluginService) RemoveContainer(ctx context.Context, req *api.RemoveContainerRequest) (*api.RemoveContainerResponse, error) {
	return callMethod[api.RemoveContainerResponse](ctx, s, mRemoveContainer, req)
}

// StateChange fails at once in a revision without it, as the plugin would;
// the revision's rules keep dispatch from calling it there.
func (s pluginService) StateChange(ctx context.Context, req *api.StateChangeEvent) (*api.Empty, error) {
	if !s.stateChange {
		return nil, status.Error(codes.Unimplemented, "nrikit: this protocol revision has no StateChange")
	}
	return callMethod[api.Empty](ctx, s, mStateChange, req)
}

func (s pluginService) ValidateContainerAdjustment(ctx context.Context, req *api.ValidateContainerAdjustmentRequest) (*api.ValidateContainerAdjustmentResponse, error) {
	return callMethod[api.ValidateContainerAdjustmentResponse](ctx, s, mValidateContainerAdjustment, req)
}
