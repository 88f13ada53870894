// SPDX-License-Identifier: Apache-2.0

// Refusing an UpdateContainers call with more updates than MaxUnsolicitedUpdates, before decoding it.

package pluginconn

import (
	"context"
	"errors"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/nrikit/nrikit/api"
)

// MaxUnsolicitedUpdates is how many updates one UpdateContainers call may
// carry. Decoded, a minimal update (an ID and CPU shares, 20 bytes on the
// wire) takes about 340 bytes of the runtime's heap: a call of 4 MiB of
// them would take 67 MB, eight waiting calls of one plugin 540 MB, and
// each would hand UpdateFn 200,000 updates under the runtime's lock. A node
// runs far fewer containers than this.
const MaxUnsolicitedUpdates = 4096

// ErrTooManyUpdates refuses an UpdateContainers call with more than
// MaxUnsolicitedUpdates updates, before it is decoded.
var ErrTooManyUpdates = errors.New("nrikit: too many updates in one UpdateContainers call")

// boundUpdateCount refuses, with ResourceExhausted, an UpdateContainers
// request with more than MaxUnsolicitedUpdates updates: they are counted in
// its encoding, so that such a request is never decoded.
func boundUpdateCount(ctx context.Context, unmarshal ttrpc.Unmarshaler, _ *ttrpc.UnaryServerInfo, method ttrpc.Method) (any, error) {
	return method(ctx, func(v any) error {
		if _, ok := v.(*api.UpdateContainersRequest); ok {
			var raw api.Empty // keeps every field as unknown bytes, one copy
			if unmarshal(&raw) == nil {
				if n := countUpdates(raw.ProtoReflect().GetUnknown()); n > MaxUnsolicitedUpdates {
					return status.Errorf(codes.ResourceExhausted, "%v: %d, over the limit of %d; send them in several calls",
						ErrTooManyUpdates, n, MaxUnsolicitedUpdates)
				}
			}
		}
		return unmarshal(v)
	})
}

// countUpdates counts the update fields (1) of an encoded
// UpdateContainersRequest; one that does not parse counts what it has so
// far, and decoding it fails as it would have.
func countUpdates(b []byte) int {
	n := 0
	for len(b) > 0 {
		num, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return n
		}
		b = b[l:]
		if l = protowire.ConsumeFieldValue(num, typ, b); l < 0 {
			return n
		}
		b = b[l:]
		if num == 1 {
			n++
		}
	}
	return n
}
