// SPDX-License-Identifier: Apache-2.0

// The Plugin service's client: the caller writes its own request and waits for the reader to hand it the reply.

package pluginconn

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"

	"github.com/containerd/ttrpc"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/internal/guard"
	"github.com/nrikit/nrikit/internal/mux"
)

// client makes the runtime's calls to a plugin on mux connection 1 the way
// ttrpc's client makes them: the same messages on the same streams, with
// the same errors (request.go, reply.go). It crosses fewer goroutines: the
// calling goroutine encodes and writes its request itself, with one system
// call (mux.Direct.Send), bounded by the call's deadline; the mux's trunk
// reader parses the replies as their bytes arrive (reply.go) and decodes
// each into the caller waiting for it, which it then wakes. There is no
// sender goroutine, no goroutine per call or per connection of its own, and
// no timer: a caller waits on its context.
//
// It keeps the guard's rules for a client (guard.Replies): only the first
// response to a call it made passes; a late one, whose caller gave up, is
// dropped quietly; anything else is dropped and reported.
type client struct {
	line    *mux.Direct
	replies *guard.Replies
	report  func(guard.Violation)

	// sending is held while a request is encoded into buf and written, so
	// that stream IDs go out in increasing order, as ttrpc's do.
	sending chan struct{}
	next    uint32 // the next stream ID, odd; guarded by sending
	buf     []byte // the request being written, reused up to keptRequest; guarded by sending

	mu    sync.Mutex
	calls map[uint32]*call // calls waiting for their reply, by stream ID
	spare *call            // a call to reuse, since a plugin takes one at a time
	ended bool             // the connection receives no more replies

	in replyReader // the reply being read; the trunk reader's alone
}

// call is one call waiting for its reply.
type call struct {
	m    *method
	rsp  proto.Message // what the reply decodes into
	err  error
	done chan struct{} // a token once err (and rsp) are set; reused with the call
}

func newClient(m *mux.Mux, report func(guard.Violation)) (*client, error) {
	c := &client{
		replies: guard.NewReplies(),
		report:  report,
		sending: make(chan struct{}, 1),
		next:    1,
		calls:   map[uint32]*call{},
	}
	line, err := m.OpenDirect(mux.PluginServiceConn, c)
	if err != nil {
		return nil, err
	}
	c.line = line
	return c, nil
}

// Close ends the client: calls waiting fail with ttrpc.ErrClosed, as later
// ones do.
func (c *client) Close() error { return c.line.Close() }

// invoke calls m with req and decodes its reply into rsp, as
// ttrpc.Client.Call does.
func (c *client) invoke(ctx context.Context, m *method, req, rsp proto.Message) error {
	k, id, err := c.send(ctx, m, req, rsp)
	if err != nil {
		return err
	}
	return c.wait(ctx, k, id)
}

// send encodes and writes the request of a new call, and returns the call,
// open under stream id.
func (c *client) send(ctx context.Context, m *method, req, rsp proto.Message) (*call, uint32, error) {
	select {
	case c.sending <- struct{}{}:
	default:
		select {
		case c.sending <- struct{}{}:
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	}
	defer func() { <-c.sending }()
	if c.isEnded() {
		return nil, 0, ttrpc.ErrClosed
	}
	id := c.next
	c.next += 2 // taken even if the request is refused, as ttrpc does
	msg, err := c.encode(ctx, id, m, req)
	if err != nil {
		return nil, 0, err
	}
	k := c.open(id, m, rsp)
	deadline, _ := ctx.Deadline()
	err = c.line.Send(msg, deadline, ctx.Done())
	c.release(msg)
	if err != nil {
		c.giveUp(k, id)
		if errors.Is(err, mux.ErrStopped) {
			return nil, 0, ctx.Err()
		}
		return nil, 0, closeError(err)
	}
	return k, id, nil
}

// open records call id before its request goes out, so that its reply
// always finds it.
func (c *client) open(id uint32, m *method, rsp proto.Message) *call {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.spare
	c.spare = nil
	if k == nil {
		k = &call{done: make(chan struct{}, 1)}
	}
	k.m, k.rsp, k.err = m, rsp, nil
	c.calls[id] = k
	c.replies.Opened(id)
	return k
}

// wait waits for call id's reply until ctx ends. A reply the reader has
// taken by then is decoding: the caller waits for it, a moment, rather than
// drop an answer that came in time.
func (c *client) wait(ctx context.Context, k *call, id uint32) error {
	select {
	case <-k.done:
	case <-ctx.Done():
		if c.giveUp(k, id) {
			return ctx.Err()
		}
		<-k.done
	}
	err := k.err
	c.reuse(k)
	return err
}

// giveUp forgets call id, whose caller no longer waits: its reply, if it
// comes, is dropped quietly. It reports false if the reader or the
// connection's end has taken the call already, which then gets its token.
func (c *client) giveUp(k *call, id uint32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls[id] != k {
		return false
	}
	delete(c.calls, id)
	c.replies.Abandon(id)
	k.m, k.rsp = nil, nil
	return true
}

// take hands the reader call id to answer; nil if its caller gave up.
func (c *client) take(id uint32) *call {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.calls[id]
	delete(c.calls, id)
	return k
}

// answer sets k's outcome and wakes its caller.
func answer(k *call, err error) {
	k.err = err
	k.done <- struct{}{}
}

// reuse keeps k for the next call once its caller has its outcome.
func (c *client) reuse(k *call) {
	k.m, k.rsp, k.err = nil, nil, nil
	c.mu.Lock()
	defer c.mu.Unlock()
	c.spare = k
}

func (c *client) isEnded() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ended
}

// Ended fails every call waiting, and every later one, with ttrpc.ErrClosed:
// what ttrpc's client returns once its connection is gone, whatever ended
// it (the connection's error, if nrikit ended it, is Conn.WithTrunkError's).
func (c *client) Ended(error) {
	c.mu.Lock()
	c.ended = true
	waiting := make([]*call, 0, len(c.calls))
	for id, k := range c.calls {
		waiting = append(waiting, k)
		delete(c.calls, id)
	}
	c.mu.Unlock()
	for _, k := range waiting {
		answer(k, ttrpc.ErrClosed)
	}
}

// closeError is what ttrpc's client returns for a write that failed: on a
// connection that was closed or broke, ttrpc.ErrClosed; anything else (a
// write deadline that passed) as it is.
func closeError(err error) error {
	var op *net.OpError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrClosedPipe), errors.Is(err, net.ErrClosed):
		return ttrpc.ErrClosed
	case errors.As(err, &op) && op.Op == "write" && errors.Is(err, syscall.EPIPE):
		return ttrpc.ErrClosed
	}
	return err
}
