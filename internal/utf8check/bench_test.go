// SPDX-License-Identifier: Apache-2.0

package utf8check_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/fakenode"
	"github.com/nrikit/nrikit/internal/utf8check"
)

// BenchmarkEncoded is the walk's cost on what nrikit checks: a plugin's
// typical adjustment, and the runtime's CreateContainerRequest for a
// container of a busy node, against the generated encoding of the same
// message (which a socket plugin's call needs anyway).
func BenchmarkEncoded(b *testing.B) {
	pods, ctrs := fakenode.Node(1, 1)
	for _, c := range []struct {
		name string
		msg  interface {
			proto.Message
			MarshalVT() ([]byte, error)
		}
	}{
		{"adjustment", &api.CreateContainerResponse{Adjust: &api.ContainerAdjustment{
			Annotations: map[string]string{"bench.nrikit.io/a": "1"},
			Env:         []*api.KeyValue{{Key: "BENCH_A", Value: "1"}},
		}}},
		{"create-request", &api.CreateContainerRequest{Pod: pods[0], Container: ctrs[0]}},
	} {
		enc, err := c.msg.MarshalVT()
		if err != nil {
			b.Fatal(err)
		}
		md := c.msg.ProtoReflect().Descriptor()
		b.Run(c.name+"/encode", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := c.msg.MarshalVT(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/walk", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(enc)))
			for range b.N {
				if _, bad := utf8check.Encoded(enc, md); bad {
					b.Fatal("invalid")
				}
			}
		})
	}
}
