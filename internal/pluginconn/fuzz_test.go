// SPDX-License-Identifier: Apache-2.0

//go:build unix

package pluginconn

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/containerd/ttrpc"
	"github.com/sirupsen/logrus"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/guard"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/sockpair"
)

// FuzzPluginConnection feeds arbitrary sequences of ttrpc messages, in mux
// frames on connections 0 to 3, to the runtime's side of a plugin
// connection while the runtime has a call of its own in flight. Nothing may
// panic, the ttrpc server must read to the end and close, the runtime's
// call must end with the connection, and the connection must tear down.
//
// The input is a sequence of chunks: a selector byte (its low two bits are
// the mux connection ID), a big-endian uint16 length, and that many bytes
// of the connection's stream (fewer at the end of the input).
func FuzzPluginConnection(f *testing.F) {
	for _, seed := range wireFuzzSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runtimeEnd, peer := sockpair.Conns(t)
		quiet := logrus.New()
		quiet.SetOutput(io.Discard)
		c := dialForTest(t, runtimeEnd, logrus.NewEntry(quiet), nri.Unregistered)
		drained := make(chan struct{})
		go func() { defer close(drained); _, _ = io.Copy(io.Discard, peer) }()
		ctx, cancel := context.WithCancel(context.Background())
		called := make(chan struct{})
		go func() { defer close(called); _, _ = c.Service(V1alpha1).Configure(ctx, &api.ConfigureRequest{}) }()

		for len(data) >= 3 {
			id, n := uint32(data[0]&3), int(binary.BigEndian.Uint16(data[1:3]))
			data = data[3:]
			n = min(n, len(data))
			frame := binary.BigEndian.AppendUint32(nil, id)
			frame = binary.BigEndian.AppendUint32(frame, uint32(n))
			if _, err := peer.Write(append(frame, data[:n]...)); err != nil {
				t.Fatal(err)
			}
			data = data[n:]
		}
		if err := peer.(*net.UnixConn).CloseWrite(); err != nil {
			t.Fatal(err)
		}
		waitGuardClosed(t, c.served, "runtime service")
		// The call ends with the connection at the latest, on its own.
		select {
		case <-called:
		case <-time.After(20 * time.Second):
			t.Fatal("the runtime's call outlived the connection")
		}
		cancel()
		c.Close()
		peer.Close()
		<-drained
	})
}

// waitGuardClosed waits until ttrpc has closed a guarded connection, which
// it does once it has read it to the end.
func waitGuardClosed(t *testing.T, g *guard.Conn, name string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		_, changed := g.Unanswered()
		if changed == nil {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("ttrpc did not read the %s connection to its end", name)
		}
	}
}

// wireFuzzSeeds are the hostile cases of the regression tests, and a
// well-behaved exchange cut into odd frames.
func wireFuzzSeeds() [][]byte {
	const runtimeSvc = "nri.pkg.api.v1alpha1.Runtime"
	register := fuzzRequest(runtimeSvc, "RegisterPlugin", &api.RegisterPluginRequest{PluginName: "fuzz", PluginIdx: "10"})
	update := fuzzRequest(runtimeSvc, "UpdateContainers", &api.UpdateContainersRequest{})
	configured := fuzzResponse(&api.ConfigureResponse{Events: 1})
	data := []byte{0x0a, 0}
	whole := fuzzMessage(1, guard.TypeRequest, 0, register)
	return [][]byte{
		fuzzChunk(2, whole),
		fuzzChunk(2, fuzzMessage(1, guard.TypeData, 0, data)),
		fuzzChunk(2, append(fuzzMessage(1, guard.TypeRequest, 0, update), fuzzMessage(1, guard.TypeData, guard.FlagRemoteClosed, data)...)),
		append(fuzzChunk(1, fuzzMessage(1, guard.TypeResponse, 0, configured)),
			fuzzChunk(1, append(fuzzMessage(1, guard.TypeResponse, 0, configured), fuzzMessage(7, guard.TypeResponse, 0, nil)...))...),
		append(fuzzChunk(2, fuzzMessage(3, guard.TypeRequest, 0x02, update)),
			fuzzChunk(1, append(fuzzMessage(1, guard.TypeRequest, 0, register), fuzzMessage(5, 0x7f, 0, data)...))...),
		// Headers announcing 5 MiB, more than ttrpc takes, with a few bytes.
		append(fuzzChunk(2, append(guard.AppendHeader(nil, guard.Header{Length: 5 << 20, StreamID: 5, Type: guard.TypeRequest}), data...)),
			fuzzChunk(1, guard.AppendHeader(nil, guard.Header{Length: 5 << 20, StreamID: 1, Type: guard.TypeResponse}))...),
		append(append(fuzzChunk(2, whole[:4]), fuzzChunk(3, whole)...), append(fuzzChunk(0, whole), fuzzChunk(2, whole[4:])...)...),
	}
}

func fuzzChunk(id byte, b []byte) []byte {
	return append(binary.BigEndian.AppendUint16([]byte{id}, uint16(len(b))), b...)
}

func fuzzMessage(stream uint32, typ guard.MessageType, flags uint8, payload []byte) []byte {
	b := guard.AppendHeader(nil, guard.Header{Length: uint32(len(payload)), StreamID: stream, Type: typ, Flags: flags})
	return append(b, payload...)
}

func fuzzRequest(service, method string, req proto.Message) []byte {
	payload, _ := proto.Marshal(req)
	b, _ := proto.Marshal(&ttrpc.Request{Service: service, Method: method, Payload: payload})
	return b
}

func fuzzResponse(rsp proto.Message) []byte {
	payload, _ := proto.Marshal(rsp)
	b, _ := proto.Marshal(&ttrpc.Response{Payload: payload})
	return b
}
