// SPDX-License-Identifier: Apache-2.0

package merge_test

import (
	"fmt"
	"testing"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/fakenode"
	"github.com/nrikit/nrikit/internal/merge"
)

// The merge benchmarks merge the replies of plugins as they come in the
// field into the request for a container of a busy node (fakenode): a
// device plugin (annotation, env, mount, device), a topology plugin (cpuset,
// memory nodes, and an update of a neighbour) and a resource plugin (memory
// limit, OOM score, rlimit). One op is what a CreateContainer or an
// UpdateContainer costs the merge, validators' views included.

// realisticReplies are the three plugins' replies to CreateContainer.
func realisticReplies() []*api.CreateContainerResponse {
	return []*api.CreateContainerResponse{
		{Adjust: &api.ContainerAdjustment{
			Annotations: map[string]string{"devices.example.com/gpu": "0"},
			Env:         []*api.KeyValue{{Key: "NVIDIA_VISIBLE_DEVICES", Value: "0"}, {Key: "GPU_MODE", Value: "exclusive"}},
			Mounts: []*api.Mount{{Destination: "/usr/lib/gpu", Type: "bind", Source: "/opt/gpu/lib",
				Options: []string{"rbind", "ro"}}},
			Linux: &api.LinuxContainerAdjustment{Devices: []*api.LinuxDevice{{Path: "/dev/gpu0", Type: "c", Major: 195}}},
		}},
		{
			Adjust: &api.ContainerAdjustment{
				Annotations: map[string]string{"topology.example.com/cpus": "4-7"},
				Linux: &api.LinuxContainerAdjustment{Resources: &api.LinuxResources{
					Cpu: &api.LinuxCPU{Cpus: "4-7", Mems: "0"}}},
			},
			Update: []*api.ContainerUpdate{{ContainerId: "neighbour", Linux: &api.LinuxContainerUpdate{
				Resources: &api.LinuxResources{Cpu: &api.LinuxCPU{Cpus: "0-3"}}}}},
		},
		{Adjust: &api.ContainerAdjustment{
			Rlimits: []*api.POSIXRlimit{{Type: "RLIMIT_NOFILE", Hard: 65536, Soft: 65536}},
			Linux: &api.LinuxContainerAdjustment{
				Resources:   &api.LinuxResources{Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 2 << 30}}},
				OomScoreAdj: &api.OptionalInt{Value: 500},
			},
		}},
	}
}

var plugins = []string{"10-devices", "20-topology", "30-resources"}

// BenchmarkCreate merges 1 and 3 replies to one CreateContainer, then
// builds the merged response and the validators' view (owners and the
// original container).
func BenchmarkCreate(b *testing.B) {
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("replies=%d", n), func(b *testing.B) {
			replies := realisticReplies()[:n]
			pods, ctrs := fakenode.Node(1, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c := merge.NewCreate(&api.CreateContainerRequest{Pod: pods[0], Container: ctrs[i]})
				for j, rsp := range replies {
					if err := c.Apply(plugins[j], rsp); err != nil {
						b.Fatal(err)
					}
				}
				if c.Err() != nil || c.Response() == nil || c.Owners() == nil || c.Original() == nil {
					b.Fatal("merge failed")
				}
			}
		})
	}
}

// BenchmarkUpdate merges 1 and 3 replies to one UpdateContainer, each
// updating the container itself.
func BenchmarkUpdate(b *testing.B) {
	updates := []*api.LinuxResources{
		{Cpu: &api.LinuxCPU{Cpus: "4-7", Mems: "0"}},
		{Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 2 << 30}}},
		{Cpu: &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 1024}}},
	}
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("replies=%d", n), func(b *testing.B) {
			pods, ctrs := fakenode.Node(1, 1)
			replies := make([]*api.UpdateContainerResponse, n)
			for j := range replies {
				replies[j] = &api.UpdateContainerResponse{Update: []*api.ContainerUpdate{{
					ContainerId: ctrs[0].GetId(), Linux: &api.LinuxContainerUpdate{Resources: updates[j]}}}}
			}
			req := &api.UpdateContainerRequest{Pod: pods[0], Container: ctrs[0], LinuxResources: ctrs[0].GetLinux().GetResources()}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				u := merge.NewUpdate(req)
				for j, rsp := range replies {
					if err := u.Apply(plugins[j], rsp); err != nil {
						b.Fatal(err)
					}
				}
				if len(u.Response().GetUpdate()) != 1 {
					b.Fatal("merge failed")
				}
			}
		})
	}
}
