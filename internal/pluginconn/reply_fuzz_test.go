// SPDX-License-Identifier: Apache-2.0

package pluginconn

import (
	"io"
	"testing"

	"github.com/containerd/ttrpc"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/guard"
)

// FuzzReplies feeds arbitrary bytes, as the plugin's stream on connection 1,
// to the client's reading of replies while three calls wait (one of which
// its caller gives up on halfway), in pieces of a size the input chooses.
// Nothing may panic, and every call must get exactly one outcome (its reply
// or the connection's end), none the one its caller gave up.
//
// The input is a byte choosing the piece size, then the stream.
func FuzzReplies(f *testing.F) {
	for _, seed := range replyFuzzSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		piece := int(data[0])%61 + 1
		data = data[1:]
		c := &client{replies: guard.NewReplies(), calls: map[uint32]*call{}, report: func(guard.Violation) {}}
		ms := V1alpha1.methods
		calls := []struct {
			id  uint32
			k   *call
			rsp proto.Message
		}{
			{id: 1, rsp: &api.CreateContainerResponse{}},
			{id: 3, rsp: &api.Empty{}},
			{id: 5, rsp: &api.ValidateContainerAdjustmentResponse{}},
		}
		methods := []int{mCreateContainer, mShutdown, mValidateContainerAdjustment}
		for i := range calls {
			calls[i].k = c.open(calls[i].id, &ms[methods[i]], calls[i].rsp)
			c.spare = nil // each call its own
		}
		gaveUp := false
		for i := 0; len(data) > 0; i++ {
			n := min(piece, len(data))
			c.Receive(data[:n])
			data = data[n:]
			if i == 2 {
				gaveUp = c.giveUp(calls[1].k, calls[1].id)
			}
		}
		c.Ended(io.EOF)
		for i, cl := range calls {
			want := 1
			if i == 1 && gaveUp {
				want = 0
			}
			if got := len(cl.k.done); got != want {
				t.Fatalf("call %d got %d outcomes, want %d", cl.id, got, want)
			}
		}
	})
}

// replyFuzzSeeds are well-formed exchanges and the hostile cases of the
// tests, as FuzzReplies takes them.
func replyFuzzSeeds(tb testing.TB) [][]byte {
	created := reply(tb, 1, &api.CreateContainerResponse{Adjust: &api.ContainerAdjustment{Annotations: map[string]string{"a": "b"}}}, nil)
	validated := reply(tb, 5, &api.ValidateContainerAdjustmentResponse{Reject: true, Reason: "no"}, nil)
	shutdown := reply(tb, 3, &api.Empty{}, nil)
	failed := ttrpcMessage(5, guard.TypeResponse, encode(tb, &ttrpc.Response{Payload: []byte{0x12, 2, 0xff, 0xfe}}))
	join := func(piece byte, msgs ...[]byte) []byte {
		b := []byte{piece}
		for _, m := range msgs {
			b = append(b, m...)
		}
		return b
	}
	return [][]byte{
		join(60, created, shutdown, validated),
		join(0, validated, created, created, shutdown),
		join(6, failed, ttrpcMessage(7, guard.TypeResponse, nil), ttrpcMessage(1, guard.TypeData, []byte{0x0a, 0})),
		join(3, guard.AppendHeader(nil, guard.Header{Length: 5 << 20, StreamID: 1, Type: guard.TypeResponse}), shutdown),
		join(1, ttrpcMessage(1, guard.TypeResponse, []byte{0xff, 0xff}), ttrpcMessage(3, guard.TypeRequest, nil)),
	}
}
