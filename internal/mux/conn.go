// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/nrikit/nrikit/internal/syncx"
	"github.com/nrikit/nrikit/internal/wake"
)

// conn is one logical connection. The trunk reader queues received payloads
// on it; Read drains them as a byte stream. Write sends each write as one
// frame, as the reference writer does.
type conn struct {
	m   *Mux
	id  ConnID
	rdl *deadline
	wdl *deadline

	// wlock serialises Writes on this connection so that the frames of one
	// Write are not interleaved with those of another. It is a channel so a
	// waiting writer can give up at its deadline or on Close.
	wlock   chan struct{}
	closing chan struct{} // closed by shut
	recv    Receiver      // a direct connection's, which takes its bytes; nil for a queued one

	mu sync.Mutex
	// queue holds the unread payloads from queue[head] on; queue[head] may
	// be partly read (read bytes of it). The slice is reused once drained,
	// and each payload's buffer goes back to the pool once read.
	queue    []*[]byte
	head     int
	read     int
	queued   int           // unread bytes in queue
	changed  wake.Signal   // when the state changes
	readable chan struct{} // a token when a payload, the trunk's end or the close may wake a reader
	closeErr error         // why the connection is closed, nil while open
	endErr   error         // why the trunk ended; reported once queue is empty
	told     bool          // recv was told that the connection ended
}

var _ net.Conn = (*conn)(nil)

func newConn(m *Mux, id ConnID) *conn {
	return &conn{
		m:        m,
		id:       id,
		rdl:      newDeadline(),
		wdl:      newDeadline(),
		wlock:    make(chan struct{}, 1),
		closing:  make(chan struct{}),
		readable: make(chan struct{}, 1),
	}
}

// Read reads queued payload bytes, blocking until some arrive. Once the trunk
// has ended and the queue is drained it returns io.EOF, or the trunk's error
// if the trunk did not end cleanly between frames.
func (c *conn) Read(b []byte) (int, error) {
	for {
		if syncx.Closed(c.rdl.wait()) {
			return 0, c.opError("read", os.ErrDeadlineExceeded)
		}
		n, wait, err := c.tryRead(b)
		if !wait {
			return n, err
		}
		// A token may be stale (taken by no one since an earlier payload):
		// tryRead then finds nothing and the loop waits again.
		select {
		case <-c.readable:
		case <-c.closing:
		case <-c.rdl.wait():
		}
	}
}

// tryRead reads what is queued. It reports wait when there is nothing to
// read yet. One waiting reader is woken per token (readable), so a reader
// that leaves something behind passes a token on to the next.
func (c *conn) tryRead(b []byte) (n int, wait bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closeErr != nil:
		return 0, false, c.opError("read", c.closeErr)
	case len(b) == 0:
		return 0, false, nil
	case c.head < len(c.queue):
		n = c.dequeue(b)
		if c.head < len(c.queue) {
			c.wakeReader()
		}
		return n, false, nil
	case c.endErr == io.EOF:
		c.wakeReader()
		return 0, false, io.EOF
	case c.endErr != nil:
		c.wakeReader()
		return 0, false, c.opError("read", c.endErr)
	}
	return 0, true, nil
}

// wakeReader leaves a token for one waiting reader, unless one is there.
func (c *conn) wakeReader() {
	select {
	case c.readable <- struct{}{}:
	default:
	}
}

// dequeue copies queued bytes into b. Called with mu held and queue
// non-empty. It signals when a whole frame leaves the queue, since that is
// what a trunk reader waiting for room needs.
func (c *conn) dequeue(b []byte) int {
	n := 0
	for n < len(b) && c.head < len(c.queue) {
		p := *c.queue[c.head]
		k := copy(b[n:], p[c.read:])
		n += k
		c.queued -= k
		c.read += k
		if c.read < len(p) {
			break
		}
		putPayload(c.queue[c.head])
		c.queue[c.head] = nil
		c.head, c.read = c.head+1, 0
		if c.head == len(c.queue) {
			c.queue, c.head = c.queue[:0], 0 // drained: reuse the slice
		}
		c.changed.Broadcast()
	}
	return n
}

// full reports whether the trunk reader must wait before queueing more: the
// queue holds the frame limit or at least MaxFramePayload bytes. An empty
// queue always takes a frame, so per connection at most about twice
// MaxFramePayload bytes are held.
func (c *conn) full() bool {
	return len(c.queue)-c.head >= c.m.cfg.queueLimit || c.queued >= MaxFramePayload
}

// deliver queues a payload (from getPayload), waiting while the queue is
// full. It drops the payload if the connection is closed, and reports false
// if the mux ended while waiting.
func (c *conn) deliver(p *[]byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.closeErr == nil && c.full() {
		wait := c.changed.Wait()
		c.mu.Unlock()
		select {
		case <-wait:
		case <-c.m.done:
			c.mu.Lock()
			return false
		}
		c.mu.Lock()
	}
	if c.closeErr == nil {
		c.queue = append(c.queue, p)
		c.queued += len(*p)
		c.changed.Broadcast()
		c.wakeReader()
	} else {
		putPayload(p)
	}
	return true
}

// end records that the trunk has ended; queued data stays readable.
func (c *conn) end(err error) {
	c.mu.Lock()
	if c.endErr == nil {
		c.endErr = err
		c.changed.Broadcast()
		c.wakeReader()
	}
	tell := c.tellEndedLocked()
	c.mu.Unlock()
	tell(err)
}

// shut closes the connection for reason err, dropping queued data and
// waking blocked readers and writers. It reports whether this call closed it.
func (c *conn) shut(err error) bool {
	c.mu.Lock()
	if c.closeErr != nil {
		c.mu.Unlock()
		return false
	}
	c.closeErr = err
	c.queue, c.head, c.read, c.queued = nil, 0, 0, 0
	close(c.closing)
	c.changed.Broadcast()
	tell := c.tellEndedLocked()
	c.mu.Unlock()
	tell(err)
	return true
}

// tellEndedLocked returns what tells a direct connection's receiver, once,
// that it ends, with the cause given; it is called with mu held and returns
// a func to call once mu is released, since the receiver takes locks of its
// own.
func (c *conn) tellEndedLocked() func(error) {
	if c.recv == nil || c.told {
		return func(error) {}
	}
	c.told = true
	return func(err error) { c.recv.Ended(c.readError(err)) }
}

// Write sends b as one frame, as the reference writer does; only a write of
// more than MaxFramePayload bytes, which ttrpc never makes, is cut into
// frames of that size. An empty write sends nothing. Concurrent Writes on one
// connection do not interleave. If the write deadline passes inside a frame
// the trunk is out of step and the whole mux is closed.
//
// Frame boundaries are what the reference reader's buffers see, so they must
// follow the writes: ttrpc, writing through a 4096-byte bufio.Writer, sends a
// message of up to 4096 bytes in one write, and a larger one as exactly 4096
// bytes and then all of the rest in one write. A reference reader takes the
// first into its 4096-byte bufio.Reader and reads the rest straight into the
// message buffer, which is as large as that rest. Cutting the rest into
// 4096-byte frames instead would queue hundreds of frames for one message,
// and the reference reader fails its whole trunk when more than 256 frames
// of one connection wait unread.
func (c *conn) Write(b []byte) (int, error) {
	if err := c.acquire(c.wlock); err != nil {
		return 0, c.opError("write", err)
	}
	defer func() { <-c.wlock }()
	n := 0
	for n < len(b) {
		end := min(len(b), n+MaxFramePayload)
		if err := c.m.writeFrame(c, b[n:end]); err != nil {
			return n, c.opError("write", err)
		}
		n = end
	}
	return n, nil
}

// acquire takes a one-slot lock channel, giving up when the write deadline
// passes, the connection closes or the mux ends. Those are checked first so
// that a lock that happens to be free does not win over them.
func (c *conn) acquire(lock chan struct{}) error {
	if err := c.writeBlocked(); err != nil {
		return err
	}
	select {
	case lock <- struct{}{}:
		return nil
	case <-c.wdl.wait():
	case <-c.closing:
	case <-c.m.done:
	}
	return c.writeBlocked()
}

// writeBlocked returns why a write cannot proceed now, or nil.
func (c *conn) writeBlocked() error {
	switch {
	case syncx.Closed(c.closing):
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.closeErr
	case syncx.Closed(c.m.done):
		return errMuxClosed
	case syncx.Closed(c.wdl.wait()):
		return os.ErrDeadlineExceeded
	}
	return nil
}

// Close closes the connection and frees its ID. It is idempotent. A Write in
// the middle of a frame finishes that frame first, to keep the trunk in step.
func (c *conn) Close() error {
	if c.shut(net.ErrClosed) {
		c.m.forget(c)
	}
	return nil
}

// LocalAddr returns the local trunk address and the connection ID.
func (c *conn) LocalAddr() net.Addr { return Addr{Trunk: c.m.trunk.LocalAddr(), ID: c.id} }

// RemoteAddr returns the peer's trunk address and the connection ID.
func (c *conn) RemoteAddr() net.Addr { return Addr{Trunk: c.m.trunk.RemoteAddr(), ID: c.id} }

// SetDeadline sets both the read and the write deadline.
func (c *conn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

// SetReadDeadline sets the read deadline; a blocked Read honours the change.
func (c *conn) SetReadDeadline(t time.Time) error {
	if err := c.closedErr(); err != nil {
		return c.opError("set", err)
	}
	c.rdl.set(t)
	return nil
}

// SetWriteDeadline sets the write deadline. It also moves the trunk's write
// deadline if this connection is writing a frame right now.
func (c *conn) SetWriteDeadline(t time.Time) error {
	if err := c.closedErr(); err != nil {
		return c.opError("set", err)
	}
	c.wdl.set(t)
	c.m.writeDeadlineMoved(c)
	return nil
}

func (c *conn) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closeErr
}

// opError wraps err like the net package does, so callers can use
// net.Error's Timeout and errors.Is(err, os.ErrDeadlineExceeded).
func (c *conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: network, Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
