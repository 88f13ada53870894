// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"strings"
	"sync"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// nritest's own plugin, which lets the report say which plugin changed what
// in a CreateContainer. The merged response the runtime gets does not say,
// but validators are told: ValidateContainerAdjustment carries the owner of
// every field and entry. So nritest runs a built-in validator that records
// the owners it is sent and accepts everything. It shows in the plugin list
// and the calls (validators also see it among the plugins); --no-owners
// leaves it out.

const (
	ownersIndex = "99"
	ownersName  = "nritest-owners"
	// ownersAbout marks the plugin in the report.
	ownersAbout = "nritest's own: a validator that records who set what, accepts everything"
)

// ownersID is the plugin's "idx-name".
var ownersID = api.PluginID(ownersIndex, ownersName)

// ownersPlugin is the validator. It subscribes to ValidateContainerAdjustment
// only, so nrikit calls nothing else but Configure, Synchronize and
// Shutdown; the embedded nil service stands for the other methods (a call
// would panic, which nrikit turns into an error).
type ownersPlugin struct {
	api.PluginService

	mu   sync.Mutex
	seen map[string]*api.OwningPlugins // by the ID of the container created
}

func newOwnersPlugin() *ownersPlugin {
	return &ownersPlugin{seen: map[string]*api.OwningPlugins{}}
}

// builtin is the plugin, for adaptation.WithBuiltinPlugins.
func (o *ownersPlugin) builtin() adaptation.BuiltinPlugin {
	return adaptation.BuiltinPlugin{Index: ownersIndex, Name: ownersName, Handler: o}
}

// take returns and forgets the owners recorded for the creation of the
// container id; nil when none were (no owners plugin, or no validation).
func (o *ownersPlugin) take(id string) *api.OwningPlugins {
	if o == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	own := o.seen[id]
	delete(o.seen, id)
	return own
}

func (o *ownersPlugin) Configure(context.Context, *api.ConfigureRequest) (*api.ConfigureResponse, error) {
	return &api.ConfigureResponse{Events: int32(api.MaskOf(api.Event_VALIDATE_CONTAINER_ADJUSTMENT))}, nil
}

func (o *ownersPlugin) Synchronize(context.Context, *api.SynchronizeRequest) (*api.SynchronizeResponse, error) {
	return &api.SynchronizeResponse{}, nil
}

func (o *ownersPlugin) Shutdown(context.Context, *api.ShutdownRequest) (*api.Empty, error) {
	return &api.Empty{}, nil
}

// ValidateContainerAdjustment records the owners and accepts.
func (o *ownersPlugin) ValidateContainerAdjustment(_ context.Context, req *api.ValidateContainerAdjustmentRequest) (*api.ValidateContainerAdjustmentResponse, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen[req.GetContainer().GetId()] = req.GetOwners()
	return &api.ValidateContainerAdjustmentResponse{}, nil
}

// ownerOf is the plugin that set field f (entry key of a compound field, ""
// for a simple one) of container ctr, or removed it; "" when not known.
// Accumulating owners (OCI hooks) come as "10-a, 20-b".
func ownerOf(own *api.OwningPlugins, ctr string, f api.Field, key string) string {
	if own == nil || f == api.Field_None {
		return ""
	}
	fo := own.GetOwners()[ctr]
	owner := fo.GetSimple()[int32(f)]
	if key != "" {
		owner = fo.GetCompound()[int32(f)].GetOwners()[key]
	}
	return strings.ReplaceAll(strings.TrimPrefix(owner, "-"), ",", ", ")
}
