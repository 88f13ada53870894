// SPDX-License-Identifier: Apache-2.0

package relay

import (
	"testing"

	"github.com/sirupsen/logrus"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
)

// TestOutgoingEncodesOnce: socket plugins get a request that marshals to
// the very bytes of the original; in-process plugins get the original.
func TestOutgoingEncodesOnce(t *testing.T) {
	req := &api.StartContainerRequest{
		Pod:       &api.PodSandbox{Id: "p", Labels: map[string]string{"a": "1", "b": "2"}, State: api.PodSandboxState_POD_SANDBOX_READY},
		Container: &api.Container{Id: "c", Env: []string{"A=1"}, Linux: &api.LinuxContainer{OomScoreAdj: &api.OptionalInt{Value: -5}}},
	}
	log := logrus.NewEntry(logrus.New())
	socket := newPlugin("10", "s", nri.External, nil, inProcessConn{}, log)
	inproc := newPlugin("20", "b", nri.Builtin, nil, inProcessConn{}, log)

	out := newOutgoing(req, true)
	if got := out.to(inproc); got != req {
		t.Fatal("an in-process plugin did not get the request itself")
	}
	wire := out.to(socket)
	if wire == req || out.to(socket) != wire {
		t.Fatal("the request was not encoded once for socket plugins")
	}
	want, _ := proto.MarshalOptions{Deterministic: true}.Marshal(req)
	got, err := proto.Marshal(wire)
	if err != nil {
		t.Fatal(err)
	}
	var back api.StartContainerRequest
	if err := proto.Unmarshal(got, &back); err != nil || !proto.Equal(&back, req) {
		t.Fatalf("pre-encoded request decodes to %v, %v", &back, err)
	}
	if len(got) != len(want) {
		t.Fatalf("pre-encoded request is %d bytes, the original %d", len(got), len(want))
	}
	evolving := newOutgoing(req, false)
	before := proto.Clone(req)
	first := evolving.to(socket)
	req.Container.Env = append(req.Container.Env, "B=2")
	second := evolving.to(socket)
	if first == req || second == req || first == second {
		t.Fatal("a request that changes between plugins was not encoded anew for each")
	}
	// Each plugin gets the request as it was at its turn.
	decodesTo(t, first, before)
	decodesTo(t, second, req)
}

// TestOutgoingSeed: an evolving request encoded up front (CreateContainer
// with validators) goes out as exactly that encoding, not encoded again,
// until a reply changes it.
func TestOutgoingSeed(t *testing.T) {
	req := &api.CreateContainerRequest{
		Pod:       &api.PodSandbox{Id: "p"},
		Container: &api.Container{Id: "c", Env: []string{"A=1"}},
	}
	before := proto.Clone(req)
	socket := newPlugin("10", "s", nri.External, nil, inProcessConn{}, logrus.NewEntry(logrus.New()))
	out := newOutgoing(req, false)
	seeded := out.seed()
	first := out.to(socket)
	if got := first.ProtoReflect().GetUnknown(); len(got) == 0 || &got[0] != &seeded[0] || out.to(socket) != first {
		t.Fatal("the seeded encoding was not what plugins got before any change")
	}
	decodesTo(t, first, before)
	out.changed()
	req.Container.Env = append(req.Container.Env, "B=2")
	decodesTo(t, out.to(socket), req)
}
