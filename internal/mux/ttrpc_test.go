// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/containerd/ttrpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

const echoService = "nrikit.test.Echo"

// echoServer serves one method that prefixes its argument with name.
func echoServer(t *testing.T, name string) *ttrpc.Server {
	t.Helper()
	srv, err := ttrpc.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	srv.RegisterService(echoService, &ttrpc.ServiceDesc{
		Methods: map[string]ttrpc.Method{
			"Echo": func(_ context.Context, unmarshal func(any) error) (any, error) {
				var req wrapperspb.StringValue
				if err := unmarshal(&req); err != nil {
					return nil, err
				}
				return wrapperspb.String(name + req.Value), nil
			},
		},
	})
	return srv
}

// serve runs srv on connection id of m until the test ends. Serve returns
// when the server or the mux is closed.
func serve(t *testing.T, m *Mux, id ConnID, srv *ttrpc.Server) {
	t.Helper()
	l, err := m.Listen(id)
	if err != nil {
		t.Fatal(err)
	}
	served := goAsync(func() error { return srv.Serve(context.Background(), l) })
	t.Cleanup(func() {
		srv.Close()
		err := await(t, served, "Serve to return")
		if !errors.Is(err, ttrpc.ErrServerClosed) && !errors.Is(err, ErrClosed) {
			t.Errorf("Serve = %v", err)
		}
	})
}

func dial(t *testing.T, m *Mux, id ConnID) *ttrpc.Client {
	t.Helper()
	client := ttrpc.NewClient(mustOpen(t, m, id))
	t.Cleanup(func() {
		client.Close()
		await(t, goAsync(func() error { return client.UserOnCloseWait(context.Background()) }), "client close")
	})
	return client
}

func echo(client *ttrpc.Client, arg string) (string, error) {
	var resp wrapperspb.StringValue
	err := client.Call(context.Background(), echoService, "Echo", wrapperspb.String(arg), &resp)
	return resp.Value, err
}

// TestTTRPCBothWays runs a ttrpc server on each side, the plugin service
// on one and the runtime service on the other, as NRI does, and makes many
// concurrent calls in both directions, some large (two frames each).
func TestTTRPCBothWays(t *testing.T) {
	runtimeSide, pluginSide := muxPair(t)
	serve(t, pluginSide, PluginServiceConn, echoServer(t, "plugin:"))
	serve(t, runtimeSide, RuntimeServiceConn, echoServer(t, "runtime:"))
	toPlugin := dial(t, runtimeSide, PluginServiceConn)
	toRuntime := dial(t, pluginSide, RuntimeServiceConn)

	const callers, calls = 16, 20
	var wg sync.WaitGroup
	errs := make(chan error, 2*callers)
	for i := range 2 * callers {
		client, want := toPlugin, "plugin:"
		if i%2 == 1 {
			client, want = toRuntime, "runtime:"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range calls {
				arg := strings.Repeat(string(rune('a'+j%26)), callSize(i, j))
				got, err := echo(client, arg)
				if err != nil || got != want+arg {
					errs <- fmt.Errorf("caller %d call %d: %d bytes, %v", i, j, len(got), err)
					return
				}
			}
		}()
	}
	await(t, goAsync(func() struct{} { wg.Wait(); return struct{}{} }), "all calls")
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// callSize mixes small calls with some over 100 KiB.
func callSize(i, j int) int {
	if (i+j)%7 == 0 {
		return 100<<10 + i*j
	}
	return 1 + (i*j*97)%8192
}

// TestTTRPCFineFrames sends a hand-made ttrpc request cut into frames of 1
// to 100 bytes, as a non-Go peer may, and reads the response off the trunk.
func TestTTRPCFineFrames(t *testing.T) {
	m, raw := rawPeer(t, WithReaderBlocked())
	serve(t, m, RuntimeServiceConn, echoServer(t, "runtime:"))
	m.Unblock()

	arg := strings.Repeat("x", 5000)
	payload, err := proto.Marshal(wrapperspb.String(arg))
	if err != nil {
		t.Fatal(err)
	}
	req, err := proto.Marshal(&ttrpc.Request{Service: echoService, Method: "Echo", Payload: payload})
	if err != nil {
		t.Fatal(err)
	}
	msg := binary.BigEndian.AppendUint32(nil, uint32(len(req)))
	msg = binary.BigEndian.AppendUint32(msg, 1) // stream 1
	msg = append(msg, 1, 0)                     // request, no flags
	msg = append(msg, req...)
	for i, rest := 0, msg; len(rest) > 0; i++ {
		n := min(len(rest), 1+(i*37)%100)
		writeRaw(t, raw, rawFrame(uint32(RuntimeServiceConn), rest[:n]))
		rest = rest[n:]
	}

	resp := readTTRPCMessage(t, raw, RuntimeServiceConn)
	var r ttrpc.Response
	var got wrapperspb.StringValue
	if err := proto.Unmarshal(resp, &r); err != nil || r.Status != nil {
		t.Fatalf("response: %v, status %v", err, r.Status)
	}
	if err := proto.Unmarshal(r.Payload, &got); err != nil || got.Value != "runtime:"+arg {
		t.Fatalf("payload: %v, %d bytes", err, len(got.Value))
	}
}

// readTTRPCMessage reassembles one ttrpc message sent on id from raw frames
// and returns its body. The frames must be cut as the reference writer cuts
// them: at most MaxStartPayload bytes first, and at most one more frame.
func readTTRPCMessage(t *testing.T, raw net.Conn, id ConnID) []byte {
	t.Helper()
	var stream []byte
	for frames := 1; ; frames++ {
		fid, p, err := readRawFrame(raw)
		if err != nil {
			t.Fatal(err)
		}
		if fid != uint32(id) || (frames == 1 && len(p) > MaxStartPayload) || frames > 2 {
			t.Fatalf("frame %d for %d of %d bytes", frames, fid, len(p))
		}
		stream = append(stream, p...)
		if len(stream) >= 10 {
			size := 10 + int(binary.BigEndian.Uint32(stream))
			if len(stream) >= size {
				if sid := binary.BigEndian.Uint32(stream[4:]); sid != 1 || stream[8] != 2 {
					t.Fatalf("stream %d, type %d", sid, stream[8])
				}
				return stream[10:size]
			}
		}
	}
}

// TestTTRPCPeerGone checks a client sees an orderly close, ttrpc.ErrClosed,
// when the peer's mux goes away.
func TestTTRPCPeerGone(t *testing.T) {
	a, b := muxPair(t)
	srv := echoServer(t, "")
	serve(t, b, PluginServiceConn, srv)
	client := dial(t, a, PluginServiceConn)
	if _, err := echo(client, "x"); err != nil {
		t.Fatal(err)
	}
	srv.Close() // first, or the server logs the mux closing under it
	b.Close()
	await(t, a.Done(), "trunk EOF")
	if _, err := echo(client, "x"); !errors.Is(err, ttrpc.ErrClosed) {
		t.Fatalf("call after the peer closed = %v", err)
	}
}
