// SPDX-License-Identifier: Apache-2.0

// Bounding the requests one plugin connection has pending (MaxPendingPluginCalls).

package pluginconn

import (
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/internal/guard"
	"github.com/nrikit/nrikit/internal/panics"
)

// MaxPendingPluginCalls is how many requests one plugin connection may have
// sent on the runtime service (UpdateContainers, RegisterPlugin, any other)
// that nrikit has taken on and not yet answered. A request beyond that is
// answered at once with gRPC code ResourceExhausted, without ever reaching the
// service: ttrpc starts a goroutine for every request it reads, so this caps
// the goroutines and memory one plugin can make the runtime hold, whatever
// rate it sends at.
const MaxPendingPluginCalls = 8

// boundedListener hands out connections that take on at most
// MaxPendingPluginCalls requests at once.
type boundedListener struct {
	net.Listener
	failed func(error) // told of a panic in a pump
}

func (l boundedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return newBoundedConn(c, MaxPendingPluginCalls, l.failed), nil
}

// boundedConn sits between a plugin's runtime-service connection (raw) and
// the ttrpc server. Its pump reads every message off raw, so the connection
// never stalls the mux under it (a stalled mux would not notice the plugin
// hang up), and passes it on to the server through a pipe, unless it is a
// request beyond the limit: that one is answered ResourceExhausted here.
// Writes from the server go straight to raw; each answer to a request taken
// on frees its place.
type boundedConn struct {
	net.Conn
	limit  int
	pr     *io.PipeReader
	pw     *io.PipeWriter
	failed func(error) // told of a panic in the pump

	mu       sync.Mutex
	boundary *sync.Cond          // signalled when out is between messages
	pending  map[uint32]struct{} // stream ids of requests taken on
	lastID   uint32              // highest stream id taken on
	out      frameCursor         // the server's writes
	writing  bool                // a pump's refusal is being written
	closed   bool
}

func newBoundedConn(raw net.Conn, limit int, failed func(error)) *boundedConn {
	pr, pw := io.Pipe()
	c := &boundedConn{Conn: raw, limit: limit, pr: pr, pw: pw, failed: failed,
		pending: map[uint32]struct{}{}}
	c.boundary = sync.NewCond(&c.mu)
	go c.pump()
	return c
}

func (c *boundedConn) Read(p []byte) (int, error) { return c.pr.Read(p) }

// Close closes raw and the server's end of the pipe, which ends the pump
// soon after. It does not wait for that: a pump writing a refusal to a
// plugin that reads nothing waits for the mux under it to close.
func (c *boundedConn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.boundary.Broadcast()
	c.mu.Unlock()
	err := c.Conn.Close()
	_ = c.pr.Close()
	return err
}

// pump ends the server's input with EOF whatever ended the connection's:
// ttrpc's server closes a connection on EOF, but on any other read error it
// logs "error receiving message" and keeps the connection open until the
// whole server closes.
//
// A panic in it, in code the plugin's messages steer, ends the server's
// input and is handed to failed, which ends the connection.
func (c *boundedConn) pump() {
	defer c.pw.Close()
	if err := c.pumpSafely(); panicIn(err) != nil && c.failed != nil {
		c.failed(err)
	}
}

func (c *boundedConn) pumpSafely() (err error) {
	defer panics.Recover(&err)
	c.pumpMessages()
	return nil
}

func (c *boundedConn) pumpMessages() {
	var hdr [guard.HeaderSize]byte
	for {
		if _, err := io.ReadFull(c.Conn, hdr[:]); err != nil {
			return
		}
		panics.Inject("callbound.pump", "")
		if err := c.pass(hdr, guard.ParseHeader(hdr[:])); err != nil {
			_ = c.pw.Close()
			// Keep reading until the connection ends, or the mux under it
			// would stall behind this connection and never see the plugin
			// hang up.
			_, _ = io.Copy(io.Discard, c.Conn)
			return
		}
	}
}

// pass hands one message to the server, or refuses it.
func (c *boundedConn) pass(hdr [guard.HeaderSize]byte, h guard.Header) error {
	if h.Type == guard.TypeRequest {
		if why := c.takeOn(h.StreamID); why != nil {
			if _, err := io.CopyN(io.Discard, c.Conn, int64(h.Length)); err != nil {
				return err
			}
			return c.refuse(h.StreamID, why)
		}
	}
	if _, err := c.pw.Write(hdr[:]); err != nil {
		return err
	}
	_, err := io.CopyN(c.pw, c.Conn, int64(h.Length))
	return err
}

// takeOn records request id as pending, or says why it is refused.
func (c *boundedConn) takeOn(id uint32) *status.Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case id <= c.lastID:
		// The server would refuse it too, but its answer would free the
		// place of the request that first had this id.
		return status.Newf(codes.InvalidArgument, "nrikit: stream id %d not above the last one, %d", id, c.lastID)
	case len(c.pending) >= c.limit:
		return status.Newf(codes.ResourceExhausted,
			"nrikit: more than %d calls to the runtime at once; wait for their replies", c.limit)
	}
	c.lastID = id
	c.pending[id] = struct{}{}
	return nil
}

// refuse writes the answer to a request that the server never sees, between
// two of the server's own messages. The answer is one Write, so one mux
// frame; it is about a hundred bytes, well within the 4096 bytes a reference
// reader takes in the frame that starts a message (mux.MaxStartPayload).
func (c *boundedConn) refuse(id uint32, st *status.Status) error {
	payload, err := proto.Marshal(&ttrpc.Response{Status: st.Proto()})
	if err != nil {
		return err
	}
	msg := guard.AppendHeader(make([]byte, 0, guard.HeaderSize+len(payload)),
		guard.Header{Length: uint32(len(payload)), StreamID: id, Type: guard.TypeResponse})
	msg = append(msg, payload...)

	c.mu.Lock()
	for (!c.out.atStart() || c.writing) && !c.closed {
		c.boundary.Wait()
	}
	if c.closed {
		c.mu.Unlock()
		return net.ErrClosed
	}
	c.writing = true
	c.mu.Unlock()
	_, err = c.Conn.Write(msg)
	c.mu.Lock()
	c.writing = false
	c.boundary.Broadcast()
	c.mu.Unlock()
	if err != nil {
		return fmt.Errorf("nrikit: refusing a plugin's call: %w", err)
	}
	return nil
}

// Write passes the server's bytes on; every answer to a pending request
// frees its place.
func (c *boundedConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	for c.writing {
		c.boundary.Wait()
	}
	c.writing = true
	c.mu.Unlock()
	n, err := c.Conn.Write(p)
	c.mu.Lock()
	c.out.walk(p[:n], func(h [guard.HeaderSize]byte) {
		delete(c.pending, guard.ParseHeader(h[:]).StreamID)
	})
	c.writing = false
	c.boundary.Broadcast()
	c.mu.Unlock()
	return n, err
}

// frameCursor follows ttrpc message boundaries in a byte stream without
// buffering it: how much of the current header has passed, and how many
// payload bytes are left.
type frameCursor struct {
	header [guard.HeaderSize]byte
	got    int    // header bytes seen
	left   uint64 // payload bytes still to come
}

func (f *frameCursor) atStart() bool { return f.got == 0 }

// walk records bytes that may span several messages, calling started with
// each header once it is complete.
func (f *frameCursor) walk(b []byte, started func([guard.HeaderSize]byte)) {
	for len(b) > 0 {
		if f.got < guard.HeaderSize {
			n := copy(f.header[f.got:], b)
			f.got += n
			b = b[n:]
			if f.got == guard.HeaderSize {
				f.left = uint64(guard.ParseHeader(f.header[:]).Length)
				started(f.header)
				f.endIfDone()
			}
			continue
		}
		n := int(min(uint64(len(b)), f.left))
		f.left -= uint64(n)
		b = b[n:]
		f.endIfDone()
	}
}

func (f *frameCursor) endIfDone() {
	if f.got == guard.HeaderSize && f.left == 0 {
		f.got = 0
	}
}
