// SPDX-License-Identifier: Apache-2.0

package relay

import (
	"testing"

	"github.com/containerd/ttrpc"
	"github.com/sirupsen/logrus"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/fakenode"
	"github.com/nrikit/nrikit/internal/nri"
)

// decodesTo asserts that wire, encoded by protobuf as ttrpc does, decodes
// to a message equal to want.
func decodesTo(t *testing.T, wire, want proto.Message) {
	t.Helper()
	b, err := proto.Marshal(wire)
	if err != nil {
		t.Fatal(err)
	}
	back := want.ProtoReflect().New().Interface()
	if err := proto.Unmarshal(b, back); err != nil || !proto.Equal(back, want) {
		t.Fatalf("pre-encoded %T decodes to %v, %v; want %v", want, back, err, want)
	}
}

// TestPreEncodedGenerated: an api request is pre-encoded with the generated
// encoder, in a few allocations instead of one per map entry and nested
// message.
func TestPreEncodedGenerated(t *testing.T) {
	pods, ctrs := fakenode.Node(1, 1)
	req := &api.CreateContainerRequest{Pod: pods[0], Container: ctrs[0]}
	wire, ok := preEncoded(req)
	if !ok {
		t.Fatal("not pre-encoded")
	}
	decodesTo(t, wire, req)
	// MarshalVT's buffer, and the empty message with its unknown fields;
	// proto.Marshal takes about 90 for this request.
	if n := testing.AllocsPerRun(20, func() { preEncoded(req) }); n > 4 {
		t.Errorf("pre-encoding a CreateContainerRequest takes %v allocations, want at most 4", n)
	}
}

// TestPreEncodedWithoutGenerated: a message type without the generated
// encoder is still pre-encoded, by protobuf.
func TestPreEncodedWithoutGenerated(t *testing.T) {
	req := &ttrpc.Request{Service: "s", Method: "m", Payload: []byte("payload"),
		Metadata: []*ttrpc.KeyValue{{Key: "k", Value: "v"}}}
	if _, ok := any(req).(vtMarshaler); ok {
		t.Fatal("ttrpc.Request has a generated encoder; pick another type for this test")
	}
	wire, ok := preEncoded(req)
	if !ok {
		t.Fatal("not pre-encoded")
	}
	decodesTo(t, wire, req)
	if got, want := encodedSize(req), proto.Size(req); got != want {
		t.Errorf("encodedSize %d, proto.Size %d", got, want)
	}
}

// TestSyncEncoder: each Synchronize message a socket plugin gets encodes to
// its chunk, whether the reused buffer has to grow or not; an in-process
// plugin gets the message itself.
func TestSyncEncoder(t *testing.T) {
	log := logrus.NewEntry(logrus.New())
	socket := newPlugin("10", "s", nri.External, nil, inProcessConn{}, log)
	inproc := newPlugin("20", "b", nri.Builtin, nil, inProcessConn{}, log)
	pods, ctrs := fakenode.Node(6, 2)
	chunks := []*api.SynchronizeRequest{
		{Pods: pods[:1], More: true},                   // small
		{Pods: pods[1:], Containers: ctrs, More: true}, // grows the buffer
		{Containers: ctrs[:3], More: true},             // fits in it
		{},                                             // empty
	}
	var enc syncEncoder
	for i, c := range chunks {
		if got := enc.to(inproc, c); got != c {
			t.Fatalf("message %d: an in-process plugin did not get the message itself", i)
		}
		wire := enc.to(socket, c)
		if wire == c {
			t.Fatalf("message %d was not pre-encoded", i)
		}
		if got, want := encodedSize(c), proto.Size(c); got != want {
			t.Fatalf("message %d: encodedSize %d, proto.Size %d", i, got, want)
		}
		decodesTo(t, wire, c)
	}
}
