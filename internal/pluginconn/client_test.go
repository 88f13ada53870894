// SPDX-License-Identifier: Apache-2.0

//go:build unix

package pluginconn

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/api/v1beta1"
	"github.com/nrikit/nrikit/internal/guard"
	"github.com/nrikit/nrikit/internal/mux"
	"github.com/nrikit/nrikit/internal/sockpair"
)

const waitLimit = 20 * time.Second

// peer is the plugin's end of a trunk, speaking mux frames by hand.
type peer struct {
	t    testing.TB
	conn net.Conn
}

// frame reads the next frame of connection 1, the Plugin service's.
func (p *peer) frame() []byte {
	p.t.Helper()
	_ = p.conn.SetReadDeadline(time.Now().Add(waitLimit))
	for {
		var h [mux.FrameHeaderSize]byte
		if _, err := io.ReadFull(p.conn, h[:]); err != nil {
			p.t.Fatalf("reading a frame: %v", err)
		}
		b := make([]byte, binary.BigEndian.Uint32(h[4:]))
		if _, err := io.ReadFull(p.conn, b); err != nil {
			p.t.Fatalf("reading a frame: %v", err)
		}
		if binary.BigEndian.Uint32(h[:4]) == uint32(mux.PluginServiceConn) {
			return b
		}
	}
}

// request reads one whole request message, and the sizes of the frames it
// came in.
func (p *peer) request() (h guard.Header, body []byte, frames []int) {
	p.t.Helper()
	var msg []byte
	for len(msg) < guard.HeaderSize || len(msg) < guard.HeaderSize+int(guard.ParseHeader(msg).Length) {
		f := p.frame()
		frames = append(frames, len(f))
		msg = append(msg, f...)
	}
	h = guard.ParseHeader(msg)
	if len(msg) != guard.HeaderSize+int(h.Length) {
		p.t.Fatalf("frames carry %d bytes past the message", len(msg)-guard.HeaderSize-int(h.Length))
	}
	return h, msg[guard.HeaderSize:], frames
}

// send writes msgs, each a whole ttrpc message, on connection 1: in one
// frame, or, beyond mux.MaxStartPayload bytes, as the reference frames a
// large message: its first mux.MaxStartPayload bytes, then the rest.
func (p *peer) send(msgs ...[]byte) {
	p.t.Helper()
	b := bytes.Join(msgs, nil)
	for len(b) > 0 {
		n := len(b)
		if n > mux.MaxFramePayload {
			n = mux.MaxStartPayload
		}
		f := binary.BigEndian.AppendUint32(nil, uint32(mux.PluginServiceConn))
		f = binary.BigEndian.AppendUint32(f, uint32(n))
		if _, err := p.conn.Write(append(f, b[:n]...)); err != nil {
			p.t.Fatal(err)
		}
		b = b[n:]
	}
}

// services are the two ways nrikit calls a plugin: its own client, and
// ttrpc's (with the runtime's client options) with the same string check.
var services = []struct {
	name string
	dial func(t testing.TB, m *mux.Mux, r *Revision, report func(guard.Violation)) api.PluginService
}{
	{"nrikit", func(t testing.TB, m *mux.Mux, r *Revision, report func(guard.Violation)) api.PluginService {
		c, err := newClient(m, report)
		if err != nil {
			t.Fatal(err)
		}
		return pluginService{c: c, methods: r.methods, stateChange: r.StateChange}
	}},
	{"ttrpc", func(t testing.TB, m *mux.Mux, r *Revision, report func(guard.Violation)) api.PluginService {
		pc, err := m.Open(mux.PluginServiceConn)
		if err != nil {
			t.Fatal(err)
		}
		g := guard.New(pc, guard.Config{Role: guard.Client, Report: report})
		client := ttrpc.NewClient(g, ttrpc.WithChainUnaryClientInterceptor(checkReplyStrings))
		t.Cleanup(func() { client.Close() })
		return r.client(client)
	}},
}

// dialClient returns a plugin service of kind i over a fresh trunk, and the
// plugin's end of it.
func dialClient(t testing.TB, i int, r *Revision, report func(guard.Violation)) (api.PluginService, *peer, *mux.Mux) {
	ours, theirs := sockpair.Conns(t)
	m := mux.New(ours, mux.WithReaderBlocked())
	t.Cleanup(func() { m.Close() })
	svc := services[i].dial(t, m, r, report)
	m.Unblock()
	return svc, &peer{t: t, conn: theirs}, m
}

// captured is one request as the plugin read it.
type captured struct {
	header guard.Header
	req    *ttrpc.Request
	frames []int
}

// TestClientWritesWhatTTRPCWrites: nrikit's client and ttrpc's send the
// same frames and the same messages on the same streams, in both
// revisions, for requests within one frame and over several, with and
// without a deadline and ttrpc metadata; and both hand back the same reply.
func TestClientWritesWhatTTRPCWrites(t *testing.T) {
	small := &api.CreateContainerRequest{Container: &api.Container{Id: "c", Name: "small"}}
	large := &api.CreateContainerRequest{Container: &api.Container{Id: "c", Args: []string{strings.Repeat("x", 9000)}}}
	answer := &api.CreateContainerResponse{Adjust: &api.ContainerAdjustment{Annotations: map[string]string{"a": "b"}}}
	cases := []struct {
		name     string
		req      *api.CreateContainerRequest
		deadline bool
		md       ttrpc.MD
	}{
		{"small", small, false, nil},
		{"large", large, false, nil},
		{"huge", &api.CreateContainerRequest{Container: &api.Container{Id: "c", Args: []string{strings.Repeat("y", 3<<20)}}}, false, nil},
		{"deadline", small, true, nil},
		{"metadata", large, true, ttrpc.MD{"containerd-namespace-ttrpc": {"k8s.io"}, "k": {"v1", "v2"}}},
	}
	for _, r := range Revisions {
		for _, tc := range cases {
			t.Run(r.Name+"/"+tc.name, func(t *testing.T) {
				var got [2][]captured
				var replies [2]*api.CreateContainerResponse
				for i := range services {
					svc, p, _ := dialClient(t, i, r, nil)
					for range 2 { // stream ids 1 and 3
						ctx := context.Background()
						if tc.md != nil {
							ctx = ttrpc.WithMetadata(ctx, tc.md)
						}
						if tc.deadline {
							var cancel context.CancelFunc
							ctx, cancel = context.WithTimeout(ctx, time.Hour)
							defer cancel()
						}
						result := make(chan error, 1)
						go func() {
							var err error
							replies[i], err = svc.CreateContainer(ctx, tc.req)
							result <- err
						}()
						h, body, frames := p.request()
						req := &ttrpc.Request{}
						if err := proto.Unmarshal(body, req); err != nil {
							t.Fatal(err)
						}
						got[i] = append(got[i], captured{h, req, frames})
						p.send(reply(t, h.StreamID, answer, nil))
						if err := <-result; err != nil {
							t.Fatalf("%s: %v", services[i].name, err)
						}
					}
				}
				for k := range got[0] {
					ours, theirs := got[0][k], got[1][k]
					if tc.deadline {
						for _, c := range []captured{ours, theirs} {
							if c.req.TimeoutNano <= 0 || c.req.TimeoutNano > int64(time.Hour) {
								t.Errorf("timeout %d ns sent for a deadline an hour away", c.req.TimeoutNano)
							}
						}
						ours.req.TimeoutNano, theirs.req.TimeoutNano = 0, 0
						ours.header.Length, theirs.header.Length = 0, 0
						ours.frames, theirs.frames = framesWithout(ours.frames), framesWithout(theirs.frames)
					}
					sortMetadata(ours.req)
					sortMetadata(theirs.req)
					if ours.header != theirs.header || !proto.Equal(ours.req, theirs.req) || !reflect.DeepEqual(ours.frames, theirs.frames) {
						t.Errorf("call %d: nrikit sent %+v %v in frames %v; ttrpc %+v %v in frames %v", k,
							ours.header, ours.req, ours.frames, theirs.header, theirs.req, theirs.frames)
					}
				}
				if got[0][1].header.StreamID != 3 {
					t.Errorf("second call on stream %d, want 3", got[0][1].header.StreamID)
				}
				if !proto.Equal(replies[0], replies[1]) || !proto.Equal(replies[0], answer) {
					t.Errorf("replies %v and %v, want %v", replies[0], replies[1], answer)
				}
			})
		}
	}
}

// framesWithout is a request's frame layout with the last frame's size left
// out: a timeout's varint may differ in length between two calls.
func framesWithout(frames []int) []int {
	return append(append([]int(nil), frames[:len(frames)-1]...), -1)
}

// sortMetadata orders a request's metadata, which both clients send in the
// order of a map.
func sortMetadata(r *ttrpc.Request) {
	slices.SortFunc(r.Metadata, func(a, b *ttrpc.KeyValue) int {
		return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Value, b.Value))
	})
}

// TestClientErrorsAreTTRPCs: whatever the plugin answers, nrikit's client
// returns what ttrpc's does (with the connection's check of the reply's
// strings): the same reply, or an error with the same text and code.
func TestClientErrorsAreTTRPCs(t *testing.T) {
	// ValidateContainerAdjustmentResponse's reason (2) that is not UTF-8.
	invalidReason := encode(t, &ttrpc.Response{Payload: []byte{0x12, 2, 0xff, 0xfe}})
	cases := []struct {
		name  string
		reply func(stream uint32) []byte
	}{
		{"ok", func(s uint32) []byte {
			return reply(t, s, &api.ValidateContainerAdjustmentResponse{Reject: true, Reason: "no"}, nil)
		}},
		{"empty message", func(s uint32) []byte { return ttrpcMessage(s, guard.TypeResponse, nil) }},
		{"status", func(s uint32) []byte { return reply(t, s, nil, status.New(codes.Unimplemented, "not here")) }},
		{"status and payload", func(s uint32) []byte {
			return reply(t, s, &api.ValidateContainerAdjustmentResponse{Reason: "x"}, status.New(codes.Internal, "boom"))
		}},
		{"status OK", func(s uint32) []byte {
			return reply(t, s, &api.ValidateContainerAdjustmentResponse{}, status.New(codes.OK, ""))
		}},
		{"response garbage", func(s uint32) []byte { return ttrpcMessage(s, guard.TypeResponse, []byte{0xff, 0xff, 0xff}) }},
		{"payload garbage", func(s uint32) []byte {
			return ttrpcMessage(s, guard.TypeResponse, encode(t, &ttrpc.Response{Payload: []byte{0x0a, 0x7f}}))
		}},
		{"invalid UTF-8", func(s uint32) []byte { return ttrpcMessage(s, guard.TypeResponse, invalidReason) }},
		{"payload twice", func(s uint32) []byte {
			one := encode(t, &ttrpc.Response{Payload: encode(t, &api.ValidateContainerAdjustmentResponse{Reason: "first"})})
			two := encode(t, &ttrpc.Response{Payload: encode(t, &api.ValidateContainerAdjustmentResponse{Reason: "second"})})
			return ttrpcMessage(s, guard.TypeResponse, append(one, two...))
		}},
		{"unknown field", func(s uint32) []byte {
			b := append(encode(t, &ttrpc.Response{Payload: encode(t, &api.ValidateContainerAdjustmentResponse{Reason: "r"})}), 0x18, 1)
			return ttrpcMessage(s, guard.TypeResponse, b)
		}},
		// The reply's own odd encodings, which the generated decoding
		// takes or refuses as protobuf's does.
		{"reply field of another wire type", func(s uint32) []byte {
			payload := append([]byte{0x10, 0x05}, encode(t, &api.ValidateContainerAdjustmentResponse{Reason: "r"})...)
			return ttrpcMessage(s, guard.TypeResponse, encode(t, &ttrpc.Response{Payload: payload}))
		}},
		{"reply unknown field", func(s uint32) []byte {
			payload := append(encode(t, &api.ValidateContainerAdjustmentResponse{Reason: "r"}), 0x58, 0x01)
			return ttrpcMessage(s, guard.TypeResponse, encode(t, &ttrpc.Response{Payload: payload}))
		}},
		{"reply field cut short", func(s uint32) []byte {
			return ttrpcMessage(s, guard.TypeResponse, encode(t, &ttrpc.Response{Payload: []byte{0x12, 0x05, 'a'}}))
		}},
		{"over the limit", func(s uint32) []byte {
			return ttrpcMessage(s, guard.TypeResponse, make([]byte, guard.MaxMessage+1))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var errs [2]error
			var rsps [2]*api.ValidateContainerAdjustmentResponse
			for i := range services {
				svc, p, _ := dialClient(t, i, V1alpha1, nil)
				result := make(chan error, 1)
				go func() {
					var err error
					rsps[i], err = svc.ValidateContainerAdjustment(context.Background(), &api.ValidateContainerAdjustmentRequest{})
					result <- err
				}()
				h, _, _ := p.request()
				p.send(tc.reply(h.StreamID))
				select {
				case errs[i] = <-result:
				case <-time.After(waitLimit):
					t.Fatalf("%s: no answer", services[i].name)
				}
			}
			if !proto.Equal(rsps[0], rsps[1]) {
				t.Errorf("replies: nrikit %v, ttrpc %v", rsps[0], rsps[1])
			}
			if (errs[0] == nil) != (errs[1] == nil) || errs[0] != nil && (errs[0].Error() != errs[1].Error() || status.Code(errs[0]) != status.Code(errs[1])) {
				t.Errorf("errors: nrikit %v, ttrpc %v", errs[0], errs[1])
			}
		})
	}
}

// TestClientCallsEndByTheirDeadline: a plugin that never answers costs a
// call its deadline and no more; its answer, come late, is dropped quietly
// (no violation), and the next call gets its own answer.
func TestClientCallsEndByTheirDeadline(t *testing.T) {
	var r reportsLog
	svc, p, _ := dialClient(t, 0, V1alpha1, r.add)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	result := make(chan error, 1)
	go func() {
		_, err := svc.Shutdown(ctx, &api.ShutdownRequest{})
		result <- err
	}()
	late, _, _ := p.request()
	if err := <-result; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v, want the deadline's error", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the call took %v with a deadline of 100ms", took)
	}
	go func() {
		rsp, err := svc.ValidateContainerAdjustment(context.Background(), &api.ValidateContainerAdjustmentRequest{})
		if err == nil && rsp.GetReason() != "next" {
			err = errors.New("got the reply " + rsp.GetReason())
		}
		result <- err
	}()
	next, _, _ := p.request()
	p.send(reply(t, late.StreamID, &api.ValidateContainerAdjustmentResponse{Reason: "late"}, nil),
		reply(t, next.StreamID, &api.ValidateContainerAdjustmentResponse{Reason: "next"}, nil))
	if err := <-result; err != nil {
		t.Fatal(err)
	}
	if got := r.reasons(); len(got) != 0 {
		t.Errorf("reported %q for a late answer", got)
	}
}

// TestClientWriteBoundByDeadline: a plugin that stops reading cannot hold a
// call past its deadline, even in the middle of writing its request; the
// connection, then out of step, is closed.
func TestClientWriteBoundByDeadline(t *testing.T) {
	svc, _, m := dialClient(t, 0, V1alpha1, nil)
	req := &api.SynchronizeRequest{Pods: []*api.PodSandbox{{Id: strings.Repeat("p", 3<<20)}}}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := svc.Synchronize(ctx, req)
	var timeout interface{ Timeout() bool }
	if !errors.As(err, &timeout) || !timeout.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Synchronize = %v, want a write timeout", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the call took %v with a deadline of 200ms", took)
	}
	select {
	case <-m.Done():
	case <-time.After(waitLimit):
		t.Fatal("a request cut short left the connection open")
	}
	if _, err := svc.Synchronize(context.Background(), &api.SynchronizeRequest{}); !errors.Is(err, ttrpc.ErrClosed) {
		t.Errorf("a call after that = %v, want ttrpc.ErrClosed", err)
	}
}

// TestClientConnectionLost: a call waiting when the connection ends fails
// as with ttrpc (ttrpc.ErrClosed), and so does every later one, at once.
func TestClientConnectionLost(t *testing.T) {
	svc, p, _ := dialClient(t, 0, V1beta1, nil)
	result := make(chan error, 1)
	go func() {
		_, err := svc.Configure(context.Background(), &api.ConfigureRequest{})
		result <- err
	}()
	p.request()
	p.conn.Close()
	if err := <-result; !errors.Is(err, ttrpc.ErrClosed) {
		t.Fatalf("Configure = %v, want ttrpc.ErrClosed", err)
	}
	if _, err := svc.Configure(context.Background(), &api.ConfigureRequest{}); !errors.Is(err, ttrpc.ErrClosed) {
		t.Fatalf("a later Configure = %v, want ttrpc.ErrClosed", err)
	}
}

// TestClientReportsViolations: what a peer may not send a client is
// dropped and reported, as the guard does for ttrpc's client, and the call
// in flight still gets its answer.
func TestClientReportsViolations(t *testing.T) {
	var r reportsLog
	svc, p, _ := dialClient(t, 0, V1alpha1, r.add)
	result := make(chan error, 1)
	go func() {
		_, err := svc.StopContainer(context.Background(), &api.StopContainerRequest{})
		result <- err
	}()
	h, _, _ := p.request()
	p.send(reply(t, h.StreamID+2, &api.StopContainerResponse{}, nil),
		ttrpcMessage(h.StreamID, guard.TypeData, []byte{0x0a, 0}),
		ttrpcMessage(7, guard.TypeRequest, nil),
		ttrpcMessage(9, 0x7f, []byte("junk")))
	p.send(reply(t, h.StreamID, &api.StopContainerResponse{}, nil))
	if err := <-result; err != nil {
		t.Fatal(err)
	}
	// The reader reports in order: once the next call has its answer, sent
	// after a second answer to the first, that one is reported too.
	go func() {
		_, err := svc.StopContainer(context.Background(), &api.StopContainerRequest{})
		result <- err
	}()
	next, _, _ := p.request()
	p.send(reply(t, h.StreamID, &api.StopContainerResponse{}, nil), reply(t, next.StreamID, &api.StopContainerResponse{}, nil))
	if err := <-result; err != nil {
		t.Fatal(err)
	}
	want := []string{"did not make", "data message", "request", "unknown type 127", "answered already"}
	got := r.reasons()
	if len(got) != len(want) {
		t.Fatalf("reported %q, want %d reports", got, len(want))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("report %d is %q, want it to say %q", i, got[i], want[i])
		}
	}
}

type reportsLog struct {
	mu  sync.Mutex
	got []guard.Violation
}

func (r *reportsLog) add(v guard.Violation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, v)
}

func (r *reportsLog) reasons() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, v := range r.got {
		if v.Role != guard.Client {
			out = append(out, "wrong role: "+v.Reason)
			continue
		}
		out = append(out, v.Reason)
	}
	return out
}

// TestPluginMethodsAreTheServices: the client's methods are the Plugin
// service's of both revisions, by name.
func TestPluginMethodsAreTheServices(t *testing.T) {
	for _, iface := range []reflect.Type{reflect.TypeFor[api.PluginService](), reflect.TypeFor[v1beta1.PluginService]()} {
		for i := range iface.NumMethod() {
			name := iface.Method(i).Name
			found := false
			for _, m := range methodNames {
				found = found || m == name
			}
			if !found {
				t.Errorf("%s.%s has no method in the client", iface, name)
			}
		}
	}
	if n := reflect.TypeFor[api.PluginService]().NumMethod(); n != int(numMethods) {
		t.Errorf("api.PluginService has %d methods, the client %d", n, numMethods)
	}
}

// echoPeer answers every request on connection 1 with answer (a ttrpc
// message whose stream ID it sets), allocating nothing, until the trunk
// ends.
func echoPeer(conn net.Conn, answer []byte) {
	frame := binary.BigEndian.AppendUint32(nil, uint32(mux.PluginServiceConn))
	frame = binary.BigEndian.AppendUint32(frame, uint32(len(answer)))
	frame = append(frame, answer...)
	var h [mux.FrameHeaderSize]byte
	buf := make([]byte, 1<<20)
	var msg []byte // the request being read
	for {
		if _, err := io.ReadFull(conn, h[:]); err != nil {
			return
		}
		p := buf[:binary.BigEndian.Uint32(h[4:])]
		if _, err := io.ReadFull(conn, p); err != nil {
			return
		}
		msg = append(msg, p...)
		if len(msg) < guard.HeaderSize || len(msg) < guard.HeaderSize+int(guard.ParseHeader(msg).Length) {
			continue
		}
		copy(frame[mux.FrameHeaderSize+4:], msg[4:8]) // the request's stream ID
		msg = msg[:0]
		if _, err := conn.Write(frame); err != nil {
			return
		}
	}
}

// TestClientCallAllocatesItsReplyOnly: a call allocates the reply it
// returns and nothing else: no goroutine, channel, timer or buffer per
// call. Nor does the client start a goroutine of its own.
func TestClientCallAllocatesItsReplyOnly(t *testing.T) {
	ours, theirs := sockpair.Conns(t)
	m := mux.New(ours, mux.WithReaderBlocked())
	defer m.Close()
	before := runtime.NumGoroutine()
	c, err := newClient(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := runtime.NumGoroutine(); n != before {
		t.Errorf("the client started %d goroutines", n-before)
	}
	m.Unblock()
	go echoPeer(theirs, reply(t, 0, &api.ValidateContainerAdjustmentResponse{Reject: true}, nil))
	svc := pluginService{c: c, methods: V1alpha1.methods}
	pre := &api.ValidateContainerAdjustmentRequest{} // encoded ahead, as an event's request is
	pre.ProtoReflect().SetUnknown(encode(t, &api.ValidateContainerAdjustmentRequest{Container: &api.Container{Id: strings.Repeat("c", 3000)}}))
	for _, req := range []*api.ValidateContainerAdjustmentRequest{{}, pre} {
		a := testing.AllocsPerRun(200, func() {
			if rsp, err := svc.ValidateContainerAdjustment(context.Background(), req); err != nil || !rsp.GetReject() {
				t.Fatal(rsp, err)
			}
		})
		if a > 1 {
			t.Errorf("a call with a request of %d bytes allocates %v times, want 1 (its reply)", proto.Size(req), a)
		}
	}
}
