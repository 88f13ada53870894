// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/nrikit/nrikit/internal/syncx"
)

// writeFrame writes p as one frame of c, holding the trunk lock for the whole
// frame. The trunk's write deadline is c's, so a stuck peer cannot block the
// writer past it.
func (m *Mux) writeFrame(c *conn, p []byte) error {
	if err := c.acquire(m.wlock); err != nil {
		return err
	}
	defer func() { <-m.wlock }()

	hdr := appendHeader(m.wbuf[:0], c.id, len(p))
	size := len(hdr) + len(p)
	m.setWriter(c)
	var n int
	var err error
	if len(p) <= cap(m.wbuf)-len(hdr) {
		n, err = m.io.Write(append(hdr, p...)) // small: one copy, one write
	} else {
		// Large: header and payload in one writev where the trunk is a
		// socket, without copying the payload. WriteTo consumes the
		// Buffers, so they are set up afresh on the Mux's own array each
		// time, which allocates nothing.
		m.wvec = append(m.warr[:0], hdr, p)
		var n64 int64
		n64, err = m.io.writeBuffers(&m.wvec)
		n = int(n64)
		m.wvec, m.warr = nil, [2][]byte{} // do not keep the caller's buffer
	}
	m.setWriter(nil)
	if err == nil {
		return nil
	}
	return m.writeFailed(c, n, size, err)
}

// writeFailed is what a trunk write of size bytes for c that wrote n and
// failed with err returns; a partial frame ends the trunk. Called with the
// trunk lock held.
func (m *Mux) writeFailed(c *conn, n, size int, err error) error {
	timeout := errors.Is(err, os.ErrDeadlineExceeded)
	if n == 0 && timeout {
		return os.ErrDeadlineExceeded // nothing sent: the trunk is still in step
	}
	if syncx.Closed(m.done) {
		return errMuxClosed // Close raced with the write
	}
	// A partial frame leaves the peer expecting bytes that will never come.
	m.shutdown(fmt.Errorf("nrikit: mux trunk write failed after %d of %d frame bytes (connection %d): %w",
		n, size, c.id, err))
	if timeout {
		return os.ErrDeadlineExceeded
	}
	return m.Err()
}

// setWriter records which connection is writing and gives the trunk its
// write deadline. Called with the trunk lock held.
func (m *Mux) setWriter(c *conn) {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	m.writer = c
	if c != nil {
		m.setTrunkDeadlineLocked(c.wdl.time())
	}
}

// writeDeadlineMoved applies c's new write deadline to a frame in flight.
func (m *Mux) writeDeadlineMoved(c *conn) {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if m.writer == c {
		m.setTrunkDeadlineLocked(c.wdl.time())
	}
}

func (m *Mux) setTrunkDeadlineLocked(t time.Time) {
	if t.Equal(m.trunkWDL) {
		return
	}
	// A trunk that does not support deadlines simply cannot time out.
	_ = m.trunk.SetWriteDeadline(t)
	m.trunkWDL = t
}
