// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

const (
	pa = "10-a"
	pb = "20-b"
	pc = "30-c"
)

const ctrID = "ctr0"

// testContainer is the container being created, with original values that
// nobody owns.
func testContainer() *api.Container {
	return &api.Container{
		Id:          ctrID,
		Annotations: map[string]string{"orig": "o"},
		Args:        []string{"sh"},
		Env:         []string{"ORIG=1", "PATH=/bin"},
		Mounts:      []*api.Mount{{Destination: "/orig", Source: "/src"}},
		Rlimits:     []*api.POSIXRlimit{{Type: "RLIMIT_NOFILE", Hard: 10, Soft: 10}},
		Linux: &api.LinuxContainer{
			Namespaces: []*api.LinuxNamespace{{Type: "network", Path: "/proc/1/ns/net"}, {Type: "pid"}},
			Devices:    []*api.LinuxDevice{{Path: "/dev/orig", Type: "c"}},
			Resources: &api.LinuxResources{
				Memory:         &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 100}},
				HugepageLimits: []*api.HugepageLimit{{PageSize: "2MB", Limit: 1}},
			},
			Sysctl: map[string]string{"net.orig": "1"},
		},
	}
}

func createReq() *api.CreateContainerRequest {
	return &api.CreateContainerRequest{Pod: &api.PodSandbox{Id: "pod0"}, Container: testContainer()}
}

// reply is one plugin's CreateContainer reply in a test sequence.
type reply struct {
	plugin string
	rsp    *api.CreateContainerResponse
}

func adj(a *api.ContainerAdjustment) *api.CreateContainerResponse {
	return &api.CreateContainerResponse{Adjust: a}
}

func linuxAdj(l *api.LinuxContainerAdjustment) *api.CreateContainerResponse {
	return adj(&api.ContainerAdjustment{Linux: l})
}

func resAdj(r *api.LinuxResources) *api.CreateContainerResponse {
	return linuxAdj(&api.LinuxContainerAdjustment{Resources: r})
}

func upd(id string, ignore bool, r *api.LinuxResources) *api.ContainerUpdate {
	return &api.ContainerUpdate{ContainerId: id, IgnoreFailure: ignore, Linux: &api.LinuxContainerUpdate{Resources: r}}
}

func memLimit(v int64) *api.LinuxResources {
	return &api.LinuxResources{Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: v}}}
}

func cpuShares(v uint64) *api.LinuxResources {
	return &api.LinuxResources{Cpu: &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: v}}}
}

// checkErr compares err with the wanted sentinel (nil for success) and, if
// given, a substring of its message.
func checkErr(t *testing.T, err, want error, text string) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != nil && !errors.Is(err, want):
		t.Fatalf("error = %v, want %v", err, want)
	case text != "" && (err == nil || !strings.Contains(err.Error(), text)):
		t.Fatalf("error = %v, want it to contain %q", err, text)
	}
}

func owner(o *api.OwningPlugins, id string, f api.Field, key string) string {
	fo := o.GetOwners()[id]
	if key == "" {
		return fo.GetSimple()[int32(f)]
	}
	return fo.GetCompound()[int32(f)].GetOwners()[key]
}

func mustEqual(t *testing.T, what string, got, want proto.Message) {
	t.Helper()
	if !proto.Equal(got, want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}
