// SPDX-License-Identifier: Apache-2.0

// The protocol revisions v1alpha1 and v1beta1: everything that differs between them.

package pluginconn

import (
	"context"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/api/v1beta1"
)

// Revision is everything that differs between protocol revisions. Both speak
// the same messages over the same transport; a revision only names its
// services and says which of today's allowances it keeps. Everything else —
// dispatch, merge, sync, replacement — is shared.
type Revision struct {
	// Name is the revision as operators read it: "v1alpha1", "v1beta1".
	Name string
	// RuntimeService is the full name of the service the plugin calls.
	RuntimeService string
	// StateChange: an event without a dedicated RPC in the plugin is relayed
	// through StateChange and recorded as deprecated.
	StateChange bool
	// pluginPolicy: the plugin may declare its own failure policy in
	// ConfigureResponse.
	pluginPolicy bool
	register     func(*ttrpc.Server, api.RuntimeService)
	client       func(*ttrpc.Client) api.PluginService // ttrpc's, with the runtime's client options
	methods      *pluginMethods                        // nrikit's client's
}

var (
	// V1alpha1 is the released protocol (reference v0.11 .. v0.12).
	V1alpha1 = &Revision{
		Name:           "v1alpha1",
		RuntimeService: "nri.pkg.api.v1alpha1.Runtime",
		StateChange:    true,
		pluginPolicy:   true,
		register:       api.RegisterRuntimeService,
		client:         api.NewPluginClient,
		methods:        newPluginMethods("nri.pkg.api.v1alpha1.Plugin"),
	}
	// V1beta1 is the proposed revision (the reference's open
	// "devel/api/v1beta1" pull request, as of its head of 2025-11-04).
	V1beta1 = &Revision{
		Name:           "v1beta1",
		RuntimeService: "nri.pkg.api.v1beta1.Runtime",
		register: func(s *ttrpc.Server, rs api.RuntimeService) {
			v1beta1.RegisterRuntimeService(s, rs)
		},
		client: func(c *ttrpc.Client) api.PluginService {
			return withoutStateChange{v1beta1.NewPluginClient(c)}
		},
		methods: newPluginMethods("nri.pkg.api.v1beta1.Plugin"),
	}
	// Revisions are served on every plugin connection.
	Revisions = []*Revision{V1alpha1, V1beta1}
)

// Register serves rs as this revision's Runtime service on server.
func (r *Revision) Register(server *ttrpc.Server, rs api.RuntimeService) { r.register(server, rs) }

// withoutStateChange is a plugin client of a revision without StateChange.
// The revision's rules keep dispatch from calling it; if it is called anyway
// it fails here, as the plugin would.
type withoutStateChange struct{ v1beta1.PluginService }

func (withoutStateChange) StateChange(context.Context, *api.StateChangeEvent) (*api.Empty, error) {
	return nil, status.Error(codes.Unimplemented, "nrikit: this protocol revision has no StateChange")
}

// DeclaredPolicy is the failure policy a plugin declared in its
// ConfigureResponse, if its revision lets it declare one.
func (r *Revision) DeclaredPolicy(rsp *api.ConfigureResponse) *api.FailurePolicy {
	if !r.pluginPolicy {
		return nil
	}
	return rsp.GetFailurePolicy()
}

// runtimeCalls lists the calls nrikit serves in every revision's Runtime
// service on a plugin's connection; the guard reports requests for anything
// else, which ttrpc answers with Unimplemented. It must follow what each
// revision's register serves (TestServedMethodsAreRegistered).
var runtimeCalls = map[string]bool{"RegisterPlugin": true, "UpdateContainers": true}

func servesRuntime(service, method string) bool {
	for _, r := range Revisions {
		if r.RuntimeService == service {
			return runtimeCalls[method]
		}
	}
	return false
}
