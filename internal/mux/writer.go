package mux

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// writeFrame writes p as one frame of c, holding the trunk lock for the whole
// frame. The trunk's write deadline is c's, so a stuck peer cannot block the
// writer past it.
func (m *Mux) writeFrame(c *conn, p []byte) error {
	if err := c.acquire(m.wlock); err != nil {
		return err
	}
	defer func() { <-m.wlock }()

	frame := append(appendHeader(m.wbuf[:0], c.id, len(p)), p...)
	m.setWriter(c)
	n, err := m.trunk.Write(frame)
	m.setWriter(nil)
	if err == nil {
		return nil
	}
	timeout := errors.Is(err, os.ErrDeadlineExceeded)
	if n == 0 && timeout {
		return os.ErrDeadlineExceeded // nothing sent: the trunk is still in step
	}
	if isDone(m.done) {
		return errMuxClosed // Close raced with the write
	}
	// A partial frame leaves the peer expecting bytes that will never come.
	m.shutdown(fmt.Errorf("nrikit: mux trunk write failed after %d of %d frame bytes (connection %d): %w",
		n, len(frame), c.id, err))
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
