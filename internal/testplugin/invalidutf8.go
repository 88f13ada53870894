// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"context"
	"fmt"

	"github.com/containerd/ttrpc"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

// InvalidString is the string a plugin with Config.InvalidUTF8 hands back:
// not valid UTF-8, which protobuf forbids in a string field.
const InvalidString = "\xff\xfe"

// Where Config.InvalidUTF8 puts InvalidString, and the field the runtime
// should name for it.
const (
	InvalidAnnotationKey = "annotation-key" // CreateContainer: adjust.annotations (a key)
	InvalidUpdate        = "update"         // CreateContainer: update[0].container_id
	InvalidEviction      = "eviction"       // UpdateContainer: evict[0].reason
	InvalidRejection     = "rejection"      // ValidateContainerAdjustment: reason (rejecting)
	InvalidSyncUpdate    = "sync-update"    // Synchronize: update[0].container_id
)

var invalidUTF8Places = []string{InvalidAnnotationKey, InvalidUpdate, InvalidEviction, InvalidRejection, InvalidSyncUpdate}

func (c Config) validateInvalidUTF8() error {
	if c.InvalidUTF8 == "" {
		return nil
	}
	for _, p := range invalidUTF8Places {
		if c.InvalidUTF8 == p {
			return nil
		}
	}
	return fmt.Errorf("%w: invalid_utf8 %q is none of %q", ErrConfig, c.InvalidUTF8, invalidUTF8Places)
}

// invalidAs reports whether the plugin hands back InvalidString at place.
func (h *Handler) invalidAs(place string) bool { return h.cfg.InvalidUTF8 == place }

// sentVerbatim makes every reply of desc's methods go out as the generated
// encoder writes it, without ttrpc's protobuf encoder, which refuses invalid
// strings: the plugin then sends what a plugin built with an encoder that
// does not check would.
func sentVerbatim(desc *ttrpc.ServiceDesc) *ttrpc.ServiceDesc {
	for name, m := range desc.Methods {
		desc.Methods[name] = func(ctx context.Context, unmarshal func(any) error) (any, error) {
			rsp, err := m(ctx, unmarshal)
			if err != nil {
				return rsp, err
			}
			return verbatim(rsp), nil
		}
	}
	return desc
}

// verbatim is a message of rsp's type that encodes to rsp's generated
// encoding, carried as unknown fields.
func verbatim(rsp any) any {
	m, ok := rsp.(interface {
		proto.Message
		MarshalVT() ([]byte, error)
	})
	if !ok {
		return rsp
	}
	b, err := m.MarshalVT()
	if err != nil {
		return rsp
	}
	raw := m.ProtoReflect().New()
	raw.SetUnknown(b)
	return raw.Interface()
}

// invalidUpdates are the updates of a plugin that puts InvalidString in
// one it hands back at place, else configured.
func (h *Handler) invalidUpdates(place string, configured []*api.ContainerUpdate) []*api.ContainerUpdate {
	if !h.invalidAs(place) {
		return configured
	}
	return append([]*api.ContainerUpdate{{ContainerId: InvalidString}}, configured...)
}
