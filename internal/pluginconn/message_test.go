// SPDX-License-Identifier: Apache-2.0

// Test helpers that build the messages a plugin answers with, on every OS.

package pluginconn

import (
	"testing"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/internal/guard"
)

func ttrpcMessage(stream uint32, typ guard.MessageType, payload []byte) []byte {
	return append(guard.AppendHeader(nil, guard.Header{Length: uint32(len(payload)), StreamID: stream, Type: typ}), payload...)
}

func encode(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// reply is the plugin's answer on stream: rsp's encoding and status st.
func reply(t testing.TB, stream uint32, rsp proto.Message, st *status.Status) []byte {
	r := &ttrpc.Response{}
	if rsp != nil {
		r.Payload = encode(t, rsp)
	}
	if st != nil {
		r.Status = st.Proto()
	}
	return ttrpcMessage(stream, guard.TypeResponse, encode(t, r))
}
