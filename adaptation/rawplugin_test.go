// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/mux"
)

// rawPlugin is a hand-written peer on the runtime's socket: our mux on the
// trunk, and ttrpc messages written and read byte by byte, so that it can
// send what no ttrpc library would.
type rawPlugin struct {
	t       testing.TB
	m       *mux.Mux
	runtime net.Conn // mux connection 2: the plugin calls the runtime
	plugin  net.Conn // mux connection 1: the runtime calls the plugin
}

const (
	runtimeService = "nri.pkg.api.v1alpha1.Runtime"
	pluginService  = "nri.pkg.api.v1alpha1.Plugin"
)

func dialRaw(t testing.TB, socket string) *rawPlugin {
	t.Helper()
	trunk, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	m := mux.New(trunk)
	p := &rawPlugin{t: t, m: m}
	if p.runtime, err = m.Open(mux.RuntimeServiceConn); err != nil {
		t.Fatal(err)
	}
	if p.plugin, err = m.Open(mux.PluginServiceConn); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	return p
}

func (p *rawPlugin) close() { p.m.Close() }

// ttrpcMessage is one ttrpc message on the wire.
func ttrpcMessage(stream uint32, typ, flags byte, payload []byte) []byte {
	b := make([]byte, 10, 10+len(payload))
	binary.BigEndian.PutUint32(b[0:], uint32(len(payload)))
	binary.BigEndian.PutUint32(b[4:], stream)
	b[8], b[9] = typ, flags
	return append(b, payload...)
}

// call is the payload of a ttrpc request.
func call(service, method string, req proto.Message) []byte {
	var payload []byte
	if req != nil {
		payload = must1(proto.Marshal(req))
	}
	return must1(proto.Marshal(&ttrpc.Request{Service: service, Method: method, Payload: payload}))
}

// reply is the payload of a successful ttrpc response.
func reply(rsp proto.Message) []byte {
	return must1(proto.Marshal(&ttrpc.Response{Payload: must1(proto.Marshal(rsp))}))
}

func must1[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func (p *rawPlugin) send(c net.Conn, msgs ...[]byte) {
	p.t.Helper()
	var b []byte
	for _, m := range msgs {
		b = append(b, m...)
	}
	if _, err := c.Write(b); err != nil {
		p.t.Fatalf("raw plugin write: %v", err)
	}
}

type rawMessage struct {
	stream uint32
	typ    byte
	flags  byte
	body   []byte
}

// read reads one ttrpc message from c.
func (p *rawPlugin) read(c net.Conn) rawMessage {
	p.t.Helper()
	if err := c.SetReadDeadline(time.Now().Add(waitLimit)); err != nil {
		p.t.Fatal(err)
	}
	var h [10]byte
	if _, err := io.ReadFull(c, h[:]); err != nil {
		p.t.Fatalf("raw plugin read: %v", err)
	}
	m := rawMessage{stream: binary.BigEndian.Uint32(h[4:]), typ: h[8], flags: h[9]}
	m.body = make([]byte, binary.BigEndian.Uint32(h[0:]))
	if _, err := io.ReadFull(c, m.body); err != nil {
		p.t.Fatalf("raw plugin read: %v", err)
	}
	return m
}

// response reads the runtime's response on stream from connection 2.
func (p *rawPlugin) response(stream uint32) *ttrpc.Response {
	p.t.Helper()
	m := p.read(p.runtime)
	if m.typ != 2 || m.stream != stream {
		p.t.Fatalf("got message type %d on stream %d, want the response on stream %d", m.typ, m.stream, stream)
	}
	rsp := &ttrpc.Response{}
	if err := proto.Unmarshal(m.body, rsp); err != nil {
		p.t.Fatal(err)
	}
	return rsp
}

// request reads a request of the runtime from connection 1.
func (p *rawPlugin) request(method string) rawMessage {
	p.t.Helper()
	m := p.read(p.plugin)
	req := &ttrpc.Request{}
	if err := proto.Unmarshal(m.body, req); err != nil {
		p.t.Fatal(err)
	}
	if m.typ != 1 || req.GetMethod() != method {
		p.t.Fatalf("got message type %d calling %q, want a %s request", m.typ, req.GetMethod(), method)
	}
	return m
}

// answer replies to a request from the runtime.
func (p *rawPlugin) answer(req rawMessage, rsp proto.Message) {
	p.send(p.plugin, ttrpcMessage(req.stream, 2, 0, reply(rsp)))
}

// register registers as idx-name on stream, configures for events and
// synchronizes.
func (p *rawPlugin) register(stream uint32, idx, name string, events api.EventMask) {
	p.t.Helper()
	p.send(p.runtime, ttrpcMessage(stream, 1, 0, call(runtimeService, "RegisterPlugin",
		&api.RegisterPluginRequest{PluginName: name, PluginIdx: idx})))
	p.answer(p.request("Configure"), &api.ConfigureResponse{Events: int32(events)})
	p.answer(p.request("Synchronize"), &api.SynchronizeResponse{})
	if rsp := p.response(stream); rsp.GetStatus().GetCode() != int32(codes.OK) {
		p.t.Fatalf("RegisterPlugin: %v", rsp.GetStatus())
	}
}
