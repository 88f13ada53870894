// SPDX-License-Identifier: Apache-2.0

package api_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/fakenode"
)

// realisticCreate is a CreateContainerRequest of a busy node's size: a pod
// and a container with Kubernetes' labels, annotations, env, mounts and
// resources.
func realisticCreate() *api.CreateContainerRequest {
	pods, ctrs := fakenode.Node(1, 1)
	return &api.CreateContainerRequest{Pod: pods[0], Container: ctrs[0]}
}

// realisticValidate is the validation request of realisticCreate's event
// after three plugins each added an annotation and an env variable.
func realisticValidate() *api.ValidateContainerAdjustmentRequest {
	create := realisticCreate()
	adjust := &api.ContainerAdjustment{Annotations: map[string]string{}}
	owners := &api.OwningPlugins{Owners: map[string]*api.FieldOwners{}}
	var plugins []*api.PluginInstance
	for _, p := range []struct{ idx, name string }{{"10", "a"}, {"20", "b"}, {"30", "c"}} {
		id := p.idx + "-" + p.name
		key := "bench.nrikit.io/" + id
		adjust.Annotations[key] = "1"
		adjust.Env = append(adjust.Env, &api.KeyValue{Key: "BENCH_" + p.name, Value: "1"})
		plugins = append(plugins, &api.PluginInstance{Index: p.idx, Name: p.name})
		owners.Owners[create.GetContainer().GetId()] = &api.FieldOwners{Compound: map[int32]*api.CompoundFieldOwners{
			int32(api.Field_Annotations): {Owners: map[string]string{key: id}},
			int32(api.Field_Env):         {Owners: map[string]string{"BENCH_" + p.name: id}},
		}}
	}
	return &api.ValidateContainerAdjustmentRequest{
		Pod: create.GetPod(), Container: create.GetContainer(), Adjust: adjust, Owners: owners, Plugins: plugins,
	}
}

func BenchmarkEncodeCreateContainer(b *testing.B) {
	benchmarkEncode(b, realisticCreate())
}

func BenchmarkEncodeValidateContainerAdjustment(b *testing.B) {
	benchmarkEncode(b, realisticValidate())
}

// vtMessage is what protoc-gen-go-vtproto adds to every message type.
type vtMessage interface {
	proto.Message
	MarshalVT() ([]byte, error)
	SizeVT() int
}

// benchmarkEncode compares protobuf's reflective encoding with the
// generated one, for the whole encoding and for the size alone (what
// splitting a synchronization computes per pod and container).
func benchmarkEncode(b *testing.B, m vtMessage) {
	b.Run("proto.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := proto.Marshal(m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("MarshalVT", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := m.MarshalVT(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("proto.Size", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_ = proto.Size(m)
		}
	})
	b.Run("SizeVT", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_ = m.SizeVT()
		}
	})
}

// BenchmarkEncodeSyncChunk encodes one Synchronize message of a big node
// (about 1 MiB, the most nrikit puts in one).
func BenchmarkEncodeSyncChunk(b *testing.B) {
	pods, ctrs := fakenode.Node(50, 5)
	benchmarkEncode(b, &api.SynchronizeRequest{Pods: pods, Containers: ctrs, More: true})
}
