// SPDX-License-Identifier: Apache-2.0

//go:build unix

package guard

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/containerd/ttrpc"
	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/nrikit/nrikit/internal/sockpair"
)

const waitLimit = 10 * time.Second

// reports collects violations.
type reports struct {
	mu  sync.Mutex
	got []Violation
}

func (r *reports) add(v Violation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, v)
}

func (r *reports) reasons() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, v := range r.got {
		out = append(out, v.Reason)
	}
	return out
}

func message(stream uint32, typ MessageType, flags uint8, payload []byte) []byte {
	b := AppendHeader(nil, Header{Length: uint32(len(payload)), StreamID: stream, Type: typ, Flags: flags})
	return append(b, payload...)
}

func readMessage(t *testing.T, c net.Conn) (Header, []byte) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(waitLimit))
	var h [HeaderSize]byte
	if _, err := io.ReadFull(c, h[:]); err != nil {
		t.Fatal(err)
	}
	hdr := ParseHeader(h[:])
	b := make([]byte, hdr.Length)
	if _, err := io.ReadFull(c, b); err != nil {
		t.Fatal(err)
	}
	return hdr, b
}

// TestClientTakesOnlyTheFirstAnswerToItsCalls: a ttrpc client behind the
// guard gets the answer to its call and nothing else the peer sends.
func TestClientTakesOnlyTheFirstAnswerToItsCalls(t *testing.T) {
	ours, peer := sockpair.Conns(t)
	var r reports
	client := ttrpc.NewClient(New(ours, Config{Role: Client, Report: r.add}))
	defer client.Close()
	result := make(chan error, 1)
	var got wrapperspb.StringValue
	go func() { result <- client.Call(context.Background(), "svc", "M", &emptypb.Empty{}, &got) }()

	h, _ := readMessage(t, peer)
	answer := marshal(&ttrpc.Response{Payload: marshal(wrapperspb.String("first"))})
	garbage := [][]byte{
		message(h.StreamID, TypeData, 0, []byte{1}),
		message(h.StreamID, TypeRequest, 0, marshal(&ttrpc.Request{Service: "svc", Method: "M"})),
		message(h.StreamID+2, TypeResponse, 0, answer),
		message(h.StreamID, 9, 0, nil),
		message(h.StreamID, TypeResponse, 0, answer),
		message(h.StreamID, TypeResponse, 0, marshal(&ttrpc.Response{Payload: marshal(wrapperspb.String("second"))})),
	}
	for _, m := range garbage {
		if _, err := peer.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-result; err != nil || got.GetValue() != "first" {
		t.Fatalf("Call = %q, %v; want the first answer", got.GetValue(), err)
	}
	peer.Close() // ttrpc reads to the end and closes
	waitClosed(t, client)
	want := []string{"dropped a data message", "dropped a request", "did not make", "unknown type 9", "did not make"}
	if reasons := r.reasons(); !matches(reasons, want) {
		t.Fatalf("reported %q, want %q", reasons, want)
	}
}

// TestClientCallFailsOnOversizedAnswer: an answer over ttrpc's limit fails
// the call at once, and nothing is allocated for it.
func TestClientCallFailsOnOversizedAnswer(t *testing.T) {
	ours, peer := sockpair.Conns(t)
	client := ttrpc.NewClient(New(ours, Config{Role: Client}))
	defer client.Close()
	result := make(chan error, 1)
	go func() {
		result <- client.Call(context.Background(), "svc", "M", &emptypb.Empty{}, &emptypb.Empty{})
	}()
	h, _ := readMessage(t, peer)
	const size = MaxMessage + 1
	go func() {
		_, _ = peer.Write(AppendHeader(nil, Header{Length: size, StreamID: h.StreamID, Type: TypeResponse}))
		_, _ = peer.Write(make([]byte, size))
	}()
	select {
	case err := <-result:
		if status.Code(err) != codes.ResourceExhausted {
			t.Fatalf("Call = %v, want ResourceExhausted", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("the call did not fail")
	}
}

func waitClosed(t *testing.T, c *ttrpc.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := c.UserOnCloseWait(ctx); err != nil {
		t.Fatal("the client did not close")
	}
}

func matches(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !strings.Contains(got[i], want[i]) {
			return false
		}
	}
	return true
}

// TestServerAnswersEveryRequestItLetsThrough: behind the guard a ttrpc
// server answers each request, refusing those nrikit does not serve, and
// never sees anything else; Unanswered follows its answers.
func TestServerAnswersEveryRequestItLetsThrough(t *testing.T) {
	ours, peer := sockpair.Conns(t)
	var r reports
	g := New(ours, Config{Role: Server, Report: r.add, Serves: func(s, m string) bool { return s == "svc" && m == "M" }})
	server, err := ttrpc.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	server.RegisterService("svc", &ttrpc.ServiceDesc{Methods: map[string]ttrpc.Method{
		"M": func(ctx context.Context, _ func(any) error) (any, error) { <-release; return &emptypb.Empty{}, nil },
	}})
	served := make(chan struct{})
	go func() { defer close(served); _ = server.Serve(context.Background(), &oneListener{c: g}) }()
	defer func() { server.Close(); <-served }()

	call := func(service, method string) []byte {
		return marshal(&ttrpc.Request{Service: service, Method: method})
	}
	for _, m := range [][]byte{
		message(1, TypeRequest, 0, call("svc", "M")),      // held until release
		message(1, TypeData, FlagRemoteClosed, []byte{1}), // the stream of a call in flight
		message(3, TypeRequest, 0x02, call("svc", "M")),
		message(5, TypeRequest, 0, call("svc", "Other")),
		message(11, TypeRequest, 0, []byte{0xff}),
		message(7, TypeResponse, 0, nil),
		message(10, TypeRequest, 0, call("svc", "M")),
		message(9, TypeRequest, 0, call("svc", "M")), // after 11
	} {
		if _, err := peer.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	want := map[uint32]codes.Code{3: codes.Unimplemented, 5: codes.Unimplemented, 11: codes.InvalidArgument,
		10: codes.InvalidArgument, 9: codes.InvalidArgument, 1: codes.OK}
	for range 5 {
		expectStatus(t, peer, want)
	}
	// The answers are counted once ttrpc's writes return, which may be
	// after the peer has read them.
	waitUnanswered(t, g, 1) // the call held in flight
	close(release)
	expectStatus(t, peer, want)
	waitUnanswered(t, g, 0)
	wantReasons := []string{"dropped a data message", "opens a stream", "does not serve", "does not decode",
		"dropped a response", "even stream 10", "stream 9, not after stream 11"}
	if reasons := r.reasons(); !matches(reasons, wantReasons) {
		t.Fatalf("reported %q, want %q", reasons, wantReasons)
	}
}

func expectStatus(t *testing.T, peer net.Conn, want map[uint32]codes.Code) {
	t.Helper()
	h, b := readMessage(t, peer)
	var rsp ttrpc.Response
	if err := proto.Unmarshal(b, &rsp); err != nil || h.Type != TypeResponse {
		t.Fatalf("got %+v, %v; want a response", h, err)
	}
	code, ok := want[h.StreamID]
	if got := codes.Code(rsp.GetStatus().GetCode()); !ok || got != code {
		t.Fatalf("stream %d answered %v, want %v", h.StreamID, got, code)
	}
	delete(want, h.StreamID)
}

// waitUnanswered waits until g counts no more than want unanswered
// requests, and checks that it counts exactly want.
func waitUnanswered(t *testing.T, g *Conn, want int) {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		n, changed := g.Unanswered()
		if n < want {
			t.Fatalf("%d requests unanswered, want %d", n, want)
		}
		if n == want {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("%d requests still unanswered, want %d", n, want)
		}
	}
}

// oneListener serves one connection, then blocks until closed.
type oneListener struct {
	c      net.Conn
	once   sync.Once
	closed chan struct{}
	mu     sync.Mutex
}

func (l *oneListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	if l.closed == nil {
		l.closed = make(chan struct{})
	}
	c, closed := l.c, l.closed
	l.c = nil
	l.mu.Unlock()
	if c != nil {
		return c, nil
	}
	<-closed
	return nil, net.ErrClosed
}

func (l *oneListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed == nil {
		l.closed = make(chan struct{})
	}
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *oneListener) Addr() net.Addr { return &net.UnixAddr{Net: "unix"} }

// TestWritesFollowMessageBoundaries: a response counts as answered only
// once its last byte is written, however ttrpc cuts its writes.
func TestWritesFollowMessageBoundaries(t *testing.T) {
	ours, peer := sockpair.Conns(t)
	go func() { _, _ = io.Copy(io.Discard, peer) }()
	g := New(ours, Config{Role: Server})
	g.admit(1)
	g.admit(3)
	msgs := append(message(1, TypeResponse, 0, make([]byte, 100)), message(3, TypeResponse, 0, nil)...)
	for _, cut := range []int{3, 47, 59} { // 109 of its 110 bytes
		if _, err := g.Write(msgs[:cut]); err != nil {
			t.Fatal(err)
		}
		msgs = msgs[cut:]
		if n, _ := g.Unanswered(); n != 2 {
			t.Fatalf("after %d bytes of the first response, %d unanswered", cut, n)
		}
	}
	if _, err := g.Write(msgs[:len(msgs)-1]); err != nil {
		t.Fatal(err)
	}
	if n, _ := g.Unanswered(); n != 1 {
		t.Fatalf("after the first response, %d unanswered", n)
	}
	if _, err := g.Write(msgs[len(msgs)-1:]); err != nil {
		t.Fatal(err)
	}
	if n, _ := g.Unanswered(); n != 0 {
		t.Fatalf("after both responses, %d unanswered", n)
	}
	g.Close()
	if _, changed := g.Unanswered(); changed != nil {
		t.Fatal("a closed connection still reports a change to wait for")
	}
}

// TestClientForgetsOldestUnansweredCalls: a peer that never answers cannot
// make the client's set of open calls grow without bound.
func TestClientForgetsOldestUnansweredCalls(t *testing.T) {
	ours, peer := sockpair.Conns(t)
	go func() { _, _ = io.Copy(io.Discard, peer) }()
	g := New(ours, Config{Role: Client})
	for i := range maxOpen + 10 {
		if _, err := g.Write(message(uint32(1+2*i), TypeRequest, 0, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if len(g.replies.open) != maxOpen || g.replies.settle(1) != callUnknown || g.replies.settle(uint32(1+2*(maxOpen+9))) != callOpen {
		t.Fatalf("%d calls remembered; want the newest %d", len(g.replies.open), maxOpen)
	}
	g.AbandonOpen()
	if len(g.replies.open) != 0 || len(g.replies.abandoned) != maxOpen-1 || g.replies.settle(3) != callUnknown || g.replies.settle(uint32(1+2*(maxOpen+8))) != callAbandoned {
		t.Fatalf("after AbandonOpen: %d open, %d abandoned", len(g.replies.open), len(g.replies.abandoned))
	}
	g.Close()
}

// TestClientDropsLateAnswersQuietly: once ttrpc has given up on a call (its
// deadline passed), the answer that comes late never reaches ttrpc, which
// would log it on logrus' standard logger, and is no violation; an answer to
// a call never made still is one. The next call works.
func TestClientDropsLateAnswersQuietly(t *testing.T) {
	ttrpcLog := test.NewLocal(logrus.StandardLogger())
	defer ttrpcLog.Reset()
	ours, peer := sockpair.Conns(t)
	var r reports
	g := New(ours, Config{Role: Client, Report: r.add})
	client := ttrpc.NewClient(g)
	defer client.Close()

	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() { result <- client.Call(ctx, "svc", "M", &emptypb.Empty{}, &emptypb.Empty{}) }()
	late, _ := readMessage(t, peer)
	cancel()
	if err := <-result; err == nil {
		t.Fatal("a cancelled call succeeded")
	}
	g.AbandonOpen()

	var got wrapperspb.StringValue
	go func() { result <- client.Call(context.Background(), "svc", "M", &emptypb.Empty{}, &got) }()
	next, _ := readMessage(t, peer)
	for _, m := range [][]byte{
		message(late.StreamID, TypeResponse, 0, marshal(&ttrpc.Response{Payload: marshal(wrapperspb.String("late"))})),
		message(next.StreamID+2, TypeResponse, 0, marshal(&ttrpc.Response{})),
		message(next.StreamID, TypeResponse, 0, marshal(&ttrpc.Response{Payload: marshal(wrapperspb.String("next"))})),
	} {
		if _, err := peer.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-result; err != nil || got.GetValue() != "next" {
		t.Fatalf("next Call = %q, %v", got.GetValue(), err)
	}
	if reasons := r.reasons(); !matches(reasons, []string{"did not make"}) {
		t.Fatalf("reported %q, want only the answer to a call never made", reasons)
	}
	// ttrpc handles messages in order: it logged the late answer, if it got
	// it, before it returned the next one.
	for _, e := range ttrpcLog.AllEntries() {
		t.Errorf("ttrpc logged %q: the late answer reached it", e.Message)
	}
}

// TestRepliesVerdicts: a client's record of its calls passes the first
// response to an open call, drops a late one quietly once its caller gave
// up, and refuses everything else with a reason.
func TestRepliesVerdicts(t *testing.T) {
	r := NewReplies()
	r.Opened(1)
	r.Opened(3)
	r.Abandon(3)
	r.Abandon(5) // never made: stays unknown
	for _, tc := range []struct {
		h      Header
		want   Verdict
		reason string
	}{
		{Header{StreamID: 1, Type: TypeResponse}, Pass, ""},
		{Header{StreamID: 1, Type: TypeResponse}, Refuse, "answered already"},
		{Header{StreamID: 3, Type: TypeResponse}, Late, ""},
		{Header{StreamID: 3, Type: TypeResponse}, Refuse, "did not make"},
		{Header{StreamID: 5, Type: TypeResponse}, Refuse, "did not make"},
		{Header{StreamID: 7, Type: TypeRequest}, Refuse, "serves nothing"},
		{Header{StreamID: 1, Type: TypeData}, Refuse, "a data message"},
		{Header{StreamID: 1, Type: 0x7f}, Refuse, "unknown type 127"},
	} {
		v, reason := r.Admit(tc.h)
		if v != tc.want || !strings.Contains(reason, tc.reason) || (tc.reason == "") != (reason == "") {
			t.Errorf("Admit(%+v) = %v %q, want %v %q", tc.h, v, reason, tc.want, tc.reason)
		}
	}
}
