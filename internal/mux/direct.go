// SPDX-License-Identifier: Apache-2.0

// Direct connections: a caller writes whole messages itself, and the trunk reader hands it what arrives.

package mux

import (
	"errors"
	"io"
	"os"
	"time"
)

// Receiver takes a direct connection's bytes on the trunk reader's
// goroutine, as they arrive, in place of a queue that a Read drains: a
// client that writes its own requests (Direct.Send) and whose replies the
// trunk reader hands straight to the waiting caller crosses no other
// goroutine.
type Receiver interface {
	// Receive takes the next bytes of the connection's stream, in order.
	// p is the trunk reader's buffer, valid only until Receive returns.
	// Receive must not wait for anything that waits for the trunk reader.
	Receive(p []byte)
	// Ended is told once that the connection receives nothing more, with
	// what a Read would then return: io.EOF when the peer closed the trunk
	// between frames, otherwise a *net.OpError wrapping why. It may come
	// on any goroutine, also while a Receive is under way; bytes received
	// after it are to be ignored.
	Ended(err error)
}

// ErrStopped is returned by Direct.Send when its stop channel closed before
// anything was written, with its deadline not yet passed.
var ErrStopped = errors.New("nrikit: mux write given up by its caller")

// Direct is a logical connection opened with OpenDirect: the trunk reader
// hands its bytes to a Receiver, and its caller writes whole messages with
// Send.
type Direct struct{ c *conn }

// OpenDirect opens logical connection id, whose bytes the trunk reader
// hands to r. Frames for id that arrived before OpenDirect have been
// dropped.
func (m *Mux) OpenDirect(id ConnID, r Receiver) (*Direct, error) {
	if r == nil {
		return nil, errors.New("nrikit: mux: a direct connection needs a receiver")
	}
	c, err := m.openWith(id, r)
	if err != nil {
		return nil, err
	}
	return &Direct{c}, nil
}

// Close closes the connection and frees its ID; the receiver is told
// (Ended) unless it was already. It is idempotent.
func (d *Direct) Close() error { return d.c.Close() }

// Send writes msg, one whole message of the connection's stream whose first
// FrameHeaderSize bytes are room for the frame header, framed as the reference
// writer frames what ttrpc writes (see the package documentation): a message
// of up to MaxStartPayload bytes as one frame, a larger one as a frame of its
// first MaxStartPayload bytes and a frame of the rest, both with one system
// call (writev) where the trunk is a socket. The payload is not copied.
//
// It gives up at deadline (a *net.OpError with os.ErrDeadlineExceeded), or
// when stop closes while it waits for the trunk (ErrStopped, or the deadline
// if it has passed): stop must close by the deadline, as a context's Done
// does, since waiting for the trunk follows stop alone. Nothing has then
// been written. If the deadline passes inside the message, the trunk is out
// of step and the whole mux is closed. The zero deadline means none.
// Concurrent Sends on one connection are the caller's to serialise.
func (d *Direct) Send(msg []byte, deadline time.Time, stop <-chan struct{}) error {
	c := d.c
	payload := len(msg) - headerSize
	switch {
	case payload <= 0:
		return nil
	case payload-MaxStartPayload > MaxFramePayload:
		return c.opError("write", errors.New("nrikit: mux message too large"))
	}
	if err := c.acquireUntil(c.m.wlock, deadline, stop); err != nil {
		return c.opError("write", err)
	}
	defer func() { <-c.m.wlock }()
	if err := c.m.writeMessage(c, msg, deadline); err != nil {
		return c.opError("write", err)
	}
	return nil
}

// acquireUntil takes a one-slot lock channel, giving up when stop closes,
// the connection closes or the mux ends.
func (c *conn) acquireUntil(lock chan struct{}, deadline time.Time, stop <-chan struct{}) error {
	if err := c.sendBlocked(deadline); err != nil {
		return err
	}
	select {
	case lock <- struct{}{}:
		return nil
	case <-stop:
	case <-c.closing:
	case <-c.m.done:
	}
	if err := c.sendBlocked(deadline); err != nil {
		return err
	}
	return ErrStopped
}

// sendBlocked is writeBlocked for a Send with its own deadline.
func (c *conn) sendBlocked(deadline time.Time) error {
	if err := c.writeBlocked(); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		return err
	}
	if !deadline.IsZero() && !time.Now().Before(deadline) {
		return os.ErrDeadlineExceeded
	}
	return nil
}

// writeMessage writes msg (frame header room included) as one or two
// frames of c with one system call, holding the trunk lock.
func (m *Mux) writeMessage(c *conn, msg []byte, deadline time.Time) error {
	payload := len(msg) - headerSize
	first := min(payload, MaxStartPayload)
	appendHeader(msg[:0], c.id, first)
	m.setSender(deadline)
	size := len(msg)
	var n int
	var err error
	if first == payload {
		n, err = m.io.Write(msg)
	} else {
		// The rest's header goes between the two parts: writev, with the
		// Buffers on the Mux's own array, which allocates nothing.
		size += headerSize
		rest := appendHeader(m.dhdr[:0], c.id, payload-first)
		m.dvec = append(m.darr[:0], msg[:headerSize+first], rest, msg[headerSize+first:])
		var n64 int64
		n64, err = m.io.writeBuffers(&m.dvec)
		n = int(n64)
		m.dvec, m.darr = nil, [3][]byte{} // do not keep the caller's buffer
	}
	if err == nil {
		return nil
	}
	return m.writeFailed(c, n, size, err)
}

// setSender gives the trunk the write deadline of a Send. Called with the
// trunk lock held; no connection's own deadline applies meanwhile.
func (m *Mux) setSender(deadline time.Time) {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	m.writer = nil
	m.setTrunkDeadlineLocked(deadline)
}

// readError is what a Read of c returns once the trunk has ended with err.
func (c *conn) readError(err error) error {
	if err == io.EOF {
		return err
	}
	return c.opError("read", err)
}

// feed hands n payload bytes to r as they arrive, from the reader's
// buffer, without copying them.
func (fr *frameReader) feed(n uint32, r Receiver) error {
	for n > 0 {
		p, err := fr.r.Peek(int(min(n, uint32(fr.r.Size()))))
		if len(p) > 0 {
			r.Receive(p)
			_, _ = fr.r.Discard(len(p))
			n -= uint32(len(p))
		}
		if err != nil {
			return noEOF(err)
		}
	}
	return nil
}
