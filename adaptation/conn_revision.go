// SPDX-License-Identifier: Apache-2.0

// The protocol revisions v1alpha1 and v1beta1: everything that differs between them.

package adaptation

import (
	"context"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/api/v1beta1"
	"github.com/nrikit/nrikit/internal/nri"
)

// Protocol revisions, as PluginInfo.Revision and PluginChange.Revision
// report them.
const (
	// RevisionV1alpha1 is the released protocol (reference v0.11 .. v0.12).
	RevisionV1alpha1 = "v1alpha1"
	// RevisionV1beta1 is the proposed revision (the reference's open
	// "devel/api/v1beta1" pull request, as of its head of 2025-11-04).
	RevisionV1beta1 = "v1beta1"
)

// revision is everything that differs between protocol revisions. Both speak
// the same messages over the same transport; a revision only names its
// services and says which of today's allowances it keeps. Everything else —
// dispatch, merge, sync, replacement — is shared.
type revision struct {
	name string
	// runtimeService is the full name of the service the plugin calls.
	runtimeService string
	// stateChange: an event without a dedicated RPC in the plugin is relayed
	// through StateChange and recorded as deprecated.
	stateChange bool
	// pluginPolicy: the plugin may declare its own failure policy in
	// ConfigureResponse.
	pluginPolicy bool
	register     func(*ttrpc.Server, api.RuntimeService)
	client       func(*ttrpc.Client) api.PluginService
}

var (
	revV1alpha1 = &revision{
		name:           RevisionV1alpha1,
		runtimeService: "nri.pkg.api.v1alpha1.Runtime",
		stateChange:    true,
		pluginPolicy:   true,
		register:       api.RegisterRuntimeService,
		client:         api.NewPluginClient,
	}
	revV1beta1 = &revision{
		name:           RevisionV1beta1,
		runtimeService: "nri.pkg.api.v1beta1.Runtime",
		register: func(s *ttrpc.Server, rs api.RuntimeService) {
			v1beta1.RegisterRuntimeService(s, rs)
		},
		client: func(c *ttrpc.Client) api.PluginService {
			return withoutStateChange{v1beta1.NewPluginClient(c)}
		},
	}
	// revisions are served on every plugin connection.
	revisions = []*revision{revV1alpha1, revV1beta1}
)

// withoutStateChange is a plugin client of a revision without StateChange.
// The revision's rules keep dispatch from calling it; if it is called anyway
// it fails here, as the plugin would.
type withoutStateChange struct{ v1beta1.PluginService }

func (withoutStateChange) StateChange(context.Context, *api.StateChangeEvent) (*api.Empty, error) {
	return nil, status.Error(codes.Unimplemented, "nrikit: this protocol revision has no StateChange")
}

// declaredPolicy is the failure policy a plugin declared in its
// ConfigureResponse, if its revision lets it declare one.
func (r *revision) declaredPolicy(rsp *api.ConfigureResponse) *api.FailurePolicy {
	if !r.pluginPolicy {
		return nil
	}
	return rsp.GetFailurePolicy()
}

// registerRuntimeServices serves every revision's Runtime service on one
// plugin connection, each bound to its revision.
func registerRuntimeServices(server *ttrpc.Server, rs *runtimeService) {
	for _, r := range revisions {
		r.register(server, revisionRuntime{s: rs, rev: r})
	}
}

// speak sets the revision p's connection speaks; every log line of p names it.
func (p *plugin) speak(r *revision) {
	p.rev = r
	p.log = p.log.WithField("revision", r.name)
}

// revisionName is the revision p speaks, "" for in-process plugins, which
// speak none.
func (p *plugin) revisionName() string {
	if p.kind == nri.Builtin {
		return ""
	}
	return p.rev.name
}
