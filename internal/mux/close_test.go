// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"errors"
	"net"
	"testing"
	"time"
)

func TestOpenErrors(t *testing.T) {
	m, _ := rawPeer(t)
	if _, err := m.Open(0); !errors.Is(err, ErrReservedID) {
		t.Errorf("Open(0) = %v", err)
	}
	if _, err := m.Listen(0); !errors.Is(err, ErrReservedID) {
		t.Errorf("Listen(0) = %v", err)
	}
	c := mustOpen(t, m, 1)
	if _, err := m.Open(1); !errors.Is(err, ErrConnOpen) {
		t.Errorf("second Open(1) = %v", err)
	}
	if _, err := m.Listen(1); !errors.Is(err, ErrConnOpen) {
		t.Errorf("Listen(1) while open = %v", err)
	}
	c.Close()
	mustOpen(t, m, 1) // the ID is free again
	m.Close()
	if _, err := m.Open(2); !errors.Is(err, ErrClosed) {
		t.Errorf("Open after Close = %v", err)
	}
	if _, err := m.Listen(2); !errors.Is(err, ErrClosed) {
		t.Errorf("Listen after Close = %v", err)
	}
}

// TestConnClose closes a connection under a blocked Read and a Write that
// waits for the trunk: both return promptly, and the mux stays up.
func TestConnClose(t *testing.T) {
	m, raw := rawPeer(t)
	c := mustOpen(t, m, 1)
	writeRaw(t, raw, rawFrame(1, []byte("unread")))
	read := readAsync(c, nil) // a zero-length Read does not block
	if r := await(t, read, "empty Read"); r.n != 0 || r.err != nil {
		t.Fatalf("Read(nil) = %d, %v", r.n, r.err)
	}

	m.wlock <- struct{}{} // the trunk is busy
	written := writeAsync(c, []byte("blocked"))
	other := mustOpen(t, m, 2)
	read = readAsync(other, make([]byte, 1))
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for what, ch := range map[string]<-chan ioResult{"Read": read, "Write": written} {
		if r := await(t, ch, what); !errors.Is(r.err, net.ErrClosed) {
			t.Errorf("%s after Close = %v", what, r.err)
		}
	}
	<-m.wlock

	if err := c.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if _, err := c.Read(make([]byte, 8)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Read after Close = %v (queued data must be dropped)", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Write after Close = %v", err)
	}
	if err := c.SetDeadline(deadlineSoon()); !errors.Is(err, net.ErrClosed) {
		t.Errorf("SetDeadline after Close = %v", err)
	}
	if err := m.Err(); err != nil {
		t.Errorf("closing a connection ended the mux: %v", err)
	}
}

// TestMuxClose closes the mux under blocked Reads, a Write stuck on a full
// trunk, a Write waiting for it, and an Accept.
func TestMuxClose(t *testing.T) {
	m, _ := rawPeer(t) // the peer never reads
	c1, c2 := mustOpen(t, m, 1), mustOpen(t, m, 2)
	l, err := m.Listen(3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Accept(); err != nil {
		t.Fatal(err)
	}
	pending := map[string]<-chan ioResult{
		"Read 1":  readAsync(c1, make([]byte, 1)),
		"Read 2":  readAsync(c2, make([]byte, 1)),
		"Write 1": writeAsync(c1, make([]byte, 16<<20)), // fills the socket
		"Write 2": writeAsync(c2, make([]byte, 16<<20)),
		"Accept": goAsync(func() ioResult {
			_, err := l.Accept()
			return ioResult{0, err}
		}),
	}
	for what, ch := range pending {
		stillBlocked(t, ch, 20*time.Millisecond, what)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	for what, ch := range pending {
		r := await(t, ch, what)
		if !errors.Is(r.err, ErrClosed) || !errors.Is(r.err, net.ErrClosed) {
			t.Errorf("%s after mux Close = %v", what, r.err)
		}
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if err := m.Err(); err != ErrClosed {
		t.Errorf("Err = %v", err)
	}
	await(t, m.Done(), "Done")
}

// TestCloseAfterTrunkEOF closes connections that were left to drain.
func TestCloseAfterTrunkEOF(t *testing.T) {
	m, raw := rawPeer(t)
	c := mustOpen(t, m, 1)
	writeRaw(t, raw, rawFrame(1, []byte("left")))
	raw.Close()
	await(t, m.Done(), "trunk teardown")
	m.Close()
	if _, err := c.Read(make([]byte, 4)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Read after mux Close = %v", err)
	}
	if err := m.Err(); err.Error() != "EOF" {
		t.Errorf("Err = %v, want the first cause", err)
	}
}
