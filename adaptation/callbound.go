package adaptation

import (
	"encoding/binary"
	"net"
	"sync"
)

// MaxPendingPluginCalls is how many calls a plugin may have sent on the
// runtime service (UpdateContainers, RegisterPlugin, anything else) that
// nrikit has read but not yet answered. While a plugin is at the limit nrikit
// reads nothing more from that service connection: the plugin's further calls
// wait in its own process and in the socket, never in the runtime. The limit
// caps the goroutines and memory one plugin can make the runtime hold, since
// ttrpc starts a goroutine for every request it reads.
const MaxPendingPluginCalls = 8

// ttrpcHeaderLen is the ttrpc message header: a big-endian uint32 payload
// length, a uint32 stream id, a type byte and a flags byte.
const ttrpcHeaderLen = 10

// boundedListener hands out connections that hold at most
// MaxPendingPluginCalls unanswered messages.
type boundedListener struct {
	net.Listener
}

func (l boundedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return newBoundedConn(c, MaxPendingPluginCalls), nil
}

// boundedConn counts ttrpc messages: each one read takes a slot, each one
// written (the server only ever writes in answer to what it read) frees one.
// A Read that would start a message waits for a free slot. Messages are
// counted whatever their type, so a peer gains nothing by sending frames that
// the server does not answer: they only use up its own slots.
type boundedConn struct {
	net.Conn
	slots  chan struct{}
	closed chan struct{}
	once   sync.Once
	// The reader's own: where it is in the message stream, and whether it
	// holds the slot for the message it is about to read.
	in       frameCursor
	reserved bool
	wmu      sync.Mutex
	out      frameCursor
}

func newBoundedConn(c net.Conn, limit int) *boundedConn {
	return &boundedConn{Conn: c, slots: make(chan struct{}, limit), closed: make(chan struct{})}
}

func (c *boundedConn) Read(p []byte) (int, error) {
	if c.in.atStart() && !c.reserved {
		select {
		case c.slots <- struct{}{}:
			c.reserved = true
		case <-c.closed:
			return 0, net.ErrClosed
		}
	}
	n, err := c.Conn.Read(p[:c.in.limit(len(p))])
	if n > 0 {
		c.reserved = false
	}
	c.in.advance(p[:n])
	return n, err
}

func (c *boundedConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	n, err := c.Conn.Write(p)
	c.out.walk(p[:n], c.release)
	return n, err
}

// release frees a slot; it never blocks, and a write without a matching read
// (which the server does not make) frees nothing.
func (c *boundedConn) release() {
	select {
	case <-c.slots:
	default:
	}
}

func (c *boundedConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// frameCursor follows ttrpc message boundaries in a byte stream without
// buffering it: how much of the current header has passed, and how many
// payload bytes are left.
type frameCursor struct {
	header [ttrpcHeaderLen]byte
	got    int    // header bytes seen
	left   uint64 // payload bytes still to come
}

func (f *frameCursor) atStart() bool { return f.got == 0 }

// limit caps a read so that it never crosses the end of the current
// message: the next one must wait for its slot.
func (f *frameCursor) limit(n int) int {
	if f.got < ttrpcHeaderLen {
		return min(n, ttrpcHeaderLen-f.got)
	}
	return int(min(uint64(n), f.left))
}

// advance records bytes read with limit's cap.
func (f *frameCursor) advance(b []byte) { f.walk(b, func() {}) }

// walk records bytes that may span several messages, calling started once
// for each message whose header is complete.
func (f *frameCursor) walk(b []byte, started func()) {
	for len(b) > 0 {
		if f.got < ttrpcHeaderLen {
			n := copy(f.header[f.got:], b)
			f.got += n
			b = b[n:]
			if f.got == ttrpcHeaderLen {
				f.left = uint64(binary.BigEndian.Uint32(f.header[:4]))
				started()
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
	if f.got == ttrpcHeaderLen && f.left == 0 {
		f.got = 0
	}
}
