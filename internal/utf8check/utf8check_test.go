// SPDX-License-Identifier: Apache-2.0

package utf8check_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/fakenode"
	"github.com/nrikit/nrikit/internal/utf8check"
)

const bad = "\xff\xfe"

// TestEncodedNamesTheField: wherever an invalid string sits (a plain
// field, a list, a map key or value, deep in a message), the walk finds it
// and names the field; valid messages pass.
func TestEncodedNamesTheField(t *testing.T) {
	for _, c := range []struct {
		msg  proto.Message
		path string
	}{
		{&api.CreateContainerResponse{Adjust: &api.ContainerAdjustment{Annotations: map[string]string{bad: "v"}}},
			"adjust.annotations (a key)"},
		{&api.CreateContainerResponse{Adjust: &api.ContainerAdjustment{Annotations: map[string]string{"k": bad}}},
			`adjust.annotations["k"]`},
		{&api.CreateContainerResponse{Adjust: &api.ContainerAdjustment{Args: []string{"ok", bad}}},
			"adjust.args[1]"},
		{&api.CreateContainerResponse{Adjust: &api.ContainerAdjustment{Env: []*api.KeyValue{{Key: "A", Value: bad}}}},
			"adjust.env[0].value"},
		{&api.CreateContainerResponse{Update: []*api.ContainerUpdate{{ContainerId: "c0"}, {ContainerId: "c1",
			Linux: &api.LinuxContainerUpdate{Resources: &api.LinuxResources{Unified: map[string]string{"io.max": bad}}}}}},
			`update[1].linux.resources.unified["io.max"]`},
		{&api.UpdateContainerResponse{Evict: []*api.ContainerEviction{{ContainerId: "c", Reason: bad}}},
			"evict[0].reason"},
		{&api.ValidateContainerAdjustmentResponse{Reject: true, Reason: bad}, "reason"},
		{&api.UpdateContainersRequest{Update: []*api.ContainerUpdate{{ContainerId: bad}}}, "update[0].container_id"},
		{&api.CreateContainerRequest{Pod: &api.PodSandbox{Id: "p", Labels: map[string]string{"app": "x" + bad}}},
			`pod.labels["app"]`},
	} {
		b, err := proto.MarshalOptions{}.Marshal(c.msg)
		if err == nil {
			t.Fatalf("%v: protobuf encoded an invalid string; the test needs one it refuses", c.msg)
		}
		b = mustVT(t, c.msg)
		md := c.msg.ProtoReflect().Descriptor()
		if got, ok := utf8check.Encoded(b, md); !ok || got != c.path {
			t.Errorf("Encoded: %q (%v), want %q", got, ok, c.path)
		}
	}
	pods, ctrs := fakenode.Node(2, 3)
	valid := &api.SynchronizeRequest{Pods: pods, Containers: ctrs}
	if got, ok := utf8check.Encoded(mustVT(t, valid), valid.ProtoReflect().Descriptor()); ok {
		t.Errorf("Encoded found %q in a valid message", got)
	}
}

func mustVT(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := m.(interface{ MarshalVT() ([]byte, error) }).MarshalVT()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
