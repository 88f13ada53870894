// SPDX-License-Identifier: Apache-2.0

package guard

import (
	"fmt"
	"io"
	"net"
	"strings"
	"sync"

	"github.com/nrikit/nrikit/internal/panics"
	"github.com/nrikit/nrikit/internal/wake"
)

// Role is nrikit's end of the ttrpc connection a Conn guards.
type Role int

const (
	// Server: nrikit serves calls on the connection (the Runtime service).
	Server Role = iota + 1
	// Client: nrikit makes calls on the connection (the Plugin service).
	Client
)

func (r Role) String() string {
	if r == Server {
		return "server"
	}
	return "client"
}

// Violation is a message the guard dropped, refused, or passed on for ttrpc
// to refuse.
type Violation struct {
	Role   Role
	Header Header
	// Reason says what was wrong and what became of the message.
	Reason string
	// Service and Method name the call of a request, when it decodes; they
	// are cut to a printable length.
	Service, Method string
}

// Config configures a Conn.
type Config struct {
	Role Role
	// Serves reports whether the server serves a method; a request for
	// anything else is reported (ttrpc answers it with Unimplemented). Nil
	// means every call is served.
	Serves func(service, method string) bool
	// Report is told of every violation, on the goroutine reading the
	// connection, which waits for it.
	Report func(Violation)
	// Failed is told of a panic while reading the peer's messages (a
	// *panics.Error), which Read then returns: the connection is unusable.
	Failed func(error)
}

// Conn guards a ttrpc connection. Read hands ttrpc only the messages its
// role admits; Write watches ttrpc's own messages to learn which calls are
// open (client) or answered (server).
type Conn struct {
	net.Conn
	cfg Config

	// Read side, used only by the one goroutine reading (ttrpc's).
	hdr  [HeaderSize]byte
	out  []byte // bytes for the reader before anything else
	pass uint32 // payload bytes still to pass through as they arrive
	last uint32 // server: the stream of the last request ttrpc accepts

	// Write side, under wmu.
	wmu   sync.Mutex
	whdr  [HeaderSize]byte
	wfill int    // header bytes seen of the message being written
	wleft uint32 // payload bytes still to come of it
	wcur  Header
	wdone []uint32 // responses this Write completes

	replies *Replies // client: the calls ttrpc has open

	mu       sync.Mutex
	pending  map[uint32]int // server: requests passed, not yet answered
	npending int
	changed  wake.Signal
	closed   bool
}

// New guards c.
func New(c net.Conn, cfg Config) *Conn {
	return &Conn{Conn: c, cfg: cfg, replies: NewReplies(), pending: map[uint32]int{}}
}

// Read reads what ttrpc may see of the peer's messages. A panic in it, in
// code the peer's bytes steer, is its error, and Failed is told of it.
func (c *Conn) Read(b []byte) (n int, err error) {
	defer func() {
		if _, ok := err.(*panics.Error); ok && c.cfg.Failed != nil {
			c.cfg.Failed(err)
		}
	}()
	defer panics.Recover(&err)
	return c.read(b)
}

func (c *Conn) read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		if len(c.out) > 0 {
			n := copy(b, c.out)
			c.out = c.out[n:]
			return n, nil
		}
		if c.pass > 0 {
			if uint64(len(b)) > uint64(c.pass) {
				b = b[:c.pass]
			}
			n, err := c.Conn.Read(b)
			c.pass -= uint32(n)
			return n, err
		}
		if err := c.next(); err != nil {
			return 0, err
		}
	}
}

// next reads the next message header and decides what ttrpc gets of it.
func (c *Conn) next() error {
	if _, err := io.ReadFull(c.Conn, c.hdr[:]); err != nil {
		return err
	}
	panics.Inject("guard.read", c.cfg.Role.String())
	h := ParseHeader(c.hdr[:])
	if c.cfg.Role == Server {
		return c.serve(h)
	}
	return c.answer(h)
}

// serve admits requests. A request that would open a stream is replaced by
// one ttrpc refuses; other message types are dropped.
func (c *Conn) serve(h Header) error {
	switch {
	case h.Type != TypeRequest:
		c.report(Violation{Header: h, Reason: "dropped " + describe(h) + ": nrikit serves unary calls only"})
		return c.discard(h.Length)
	case h.Length > MaxMessage:
		return c.serveOversized(h)
	}
	msg := make([]byte, HeaderSize+int(h.Length))
	copy(msg, c.hdr[:])
	if _, err := io.ReadFull(c.Conn, msg[HeaderSize:]); err != nil {
		return noEOF(err)
	}
	service, method, ok := callName(msg[HeaderSize:])
	v := Violation{Header: h, Service: printable(service), Method: printable(method)}
	if opensStream(h) {
		return c.refuse(h, v)
	}
	if v.Reason = c.fault(h, service, method, ok); v.Reason != "" {
		c.report(v)
	}
	c.follow(h.StreamID)
	c.admit(h.StreamID)
	c.out = msg
	return nil
}

// serveOversized passes a request over ttrpc's size limit through as it
// arrives; ttrpc discards it without allocating and refuses it.
func (c *Conn) serveOversized(h Header) error {
	if opensStream(h) {
		if err := c.discard(h.Length); err != nil {
			return err
		}
		return c.refuse(h, Violation{Header: h})
	}
	c.report(Violation{Header: h, Reason: fmt.Sprintf("request of %d bytes is over ttrpc's limit: refused with ResourceExhausted", h.Length)})
	c.admit(h.StreamID)
	c.out = c.hdr[:]
	c.pass = h.Length
	return nil
}

func opensStream(h Header) bool { return h.Flags&^FlagRemoteClosed != 0 }

// fault says what ttrpc will refuse a request for, or "" if it serves it.
func (c *Conn) fault(h Header, service, method string, decodes bool) string {
	switch {
	case h.StreamID%2 == 0:
		return fmt.Sprintf("request on even stream %d: refused with InvalidArgument", h.StreamID)
	case h.StreamID <= c.last:
		return fmt.Sprintf("request on stream %d, not after stream %d: refused with InvalidArgument", h.StreamID, c.last)
	case !decodes:
		return "request does not decode: refused with InvalidArgument"
	case c.cfg.Serves != nil && !c.cfg.Serves(service, method):
		return "call to a method nrikit does not serve: refused with Unimplemented"
	}
	return ""
}

// follow tracks the stream IDs of requests as ttrpc does: odd and
// increasing, or refused.
func (c *Conn) follow(id uint32) {
	if id%2 == 1 && id > c.last {
		c.last = id
	}
}

// refuse hands ttrpc, on the request's stream, a call that it answers with
// Unimplemented in place of a request that would open a stream.
func (c *Conn) refuse(h Header, v Violation) error {
	v.Reason = fmt.Sprintf("request opens a stream (flags 0x%02x): refused with Unimplemented", h.Flags)
	c.report(v)
	c.follow(h.StreamID)
	c.admit(h.StreamID)
	c.out = refusal(h.StreamID)
	return nil
}

// answer admits the first response to each call this client made and
// still waits for.
func (c *Conn) answer(h Header) error {
	switch v, reason := c.replies.Admit(h); v {
	case Pass:
		c.out = c.hdr[:]
		c.pass = h.Length
		return nil
	case Refuse:
		c.report(Violation{Header: h, Reason: reason})
	}
	return c.discard(h.Length) // a late answer is not wrong: the caller knows of the timeout
}

// discard reads and drops n payload bytes, a piece at a time.
func (c *Conn) discard(n uint32) error {
	if n == 0 {
		return nil
	}
	if _, err := io.CopyN(io.Discard, c.Conn, int64(n)); err != nil {
		return noEOF(err)
	}
	return nil
}

func (c *Conn) report(v Violation) {
	if c.cfg.Report != nil {
		v.Role = c.cfg.Role
		c.cfg.Report(v)
	}
}

// Close closes the connection and wakes those waiting for answers.
func (c *Conn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.changed.Broadcast()
	c.mu.Unlock()
	return c.Conn.Close()
}

// describe names a message by its type for a log line.
func describe(h Header) string {
	switch h.Type {
	case TypeRequest, TypeResponse:
		return "a " + h.Type.String()
	case TypeData:
		return "a data message"
	}
	return fmt.Sprintf("a message of unknown type %d", uint8(h.Type))
}

// noEOF reports an EOF inside a message as io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// printable cuts a peer's string to a length fit for a log line.
func printable(s string) string {
	const limit = 80
	if len(s) > limit {
		return strings.ToValidUTF8(s[:limit], "") + "..."
	}
	return s
}
