// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/nrikit/nrikit/internal/sockpair"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// waitLimit bounds every wait for something that should happen promptly. It
// is generous so a loaded two-core machine does not make tests flaky.
const waitLimit = 10 * time.Second

// muxPair returns two muxes talking over a socketpair, closed at cleanup.
func muxPair(t testing.TB, opts ...Option) (*Mux, *Mux) {
	t.Helper()
	a, b := sockpair.Conns(t)
	ma, mb := New(a, opts...), New(b, opts...)
	t.Cleanup(func() {
		ma.Close()
		mb.Close()
	})
	return ma, mb
}

// rawPeer returns a mux and the raw trunk end of its peer.
func rawPeer(t testing.TB, opts ...Option) (*Mux, net.Conn) {
	t.Helper()
	a, b := sockpair.Conns(t)
	m := New(a, opts...)
	t.Cleanup(func() { m.Close() })
	return m, b
}

func mustOpen(t testing.TB, m *Mux, id ConnID) net.Conn {
	t.Helper()
	c, err := m.Open(id)
	if err != nil {
		t.Fatalf("Open(%d): %v", id, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// rawFrame encodes a frame independently of the package's encoder.
func rawFrame(id uint32, payload []byte) []byte {
	b := make([]byte, 8, 8+len(payload))
	binary.BigEndian.PutUint32(b[0:4], id)
	binary.BigEndian.PutUint32(b[4:8], uint32(len(payload)))
	return append(b, payload...)
}

func writeRaw(t testing.TB, w io.Writer, frames ...[]byte) {
	t.Helper()
	for _, f := range frames {
		if _, err := w.Write(f); err != nil {
			t.Fatalf("raw write: %v", err)
		}
	}
}

// readRawFrame reads one frame from the raw trunk end.
func readRawFrame(r io.Reader) (uint32, []byte, error) {
	var h [8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	p := make([]byte, binary.BigEndian.Uint32(h[4:8]))
	_, err := io.ReadFull(r, p)
	return binary.BigEndian.Uint32(h[0:4]), p, err
}

// pattern returns n deterministic bytes that differ per seed.
func pattern(seed, n int) []byte {
	b := make([]byte, n)
	x := uint32(seed)*2654435761 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// goAsync runs f in a goroutine and returns a channel with its result.
func goAsync[T any](f func() T) <-chan T {
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	return ch
}

// await waits for ch, failing the test after waitLimit.
func await[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// stillBlocked fails if ch yields within d: it checks that something keeps
// waiting, which needs a bounded wait rather than an event.
func stillBlocked[T any](t testing.TB, ch <-chan T, d time.Duration, what string) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("%s returned early: %v", what, v)
	case <-time.After(d):
	}
}

type ioResult struct {
	n   int
	err error
}

func readAsync(c net.Conn, b []byte) <-chan ioResult {
	return goAsync(func() ioResult {
		n, err := c.Read(b)
		return ioResult{n, err}
	})
}

func writeAsync(c net.Conn, b []byte) <-chan ioResult {
	return goAsync(func() ioResult {
		n, err := c.Write(b)
		return ioResult{n, err}
	})
}

type readResult struct {
	data []byte
	err  error
}

// readFullAsync reads exactly n bytes from r in a goroutine.
func readFullAsync(r io.Reader, n int) <-chan readResult {
	return goAsync(func() readResult {
		b := make([]byte, n)
		k, err := io.ReadFull(r, b)
		return readResult{b[:k], err}
	})
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() && errors.Is(err, os.ErrDeadlineExceeded)
}

func deadlineSoon() time.Time { return time.Now().Add(time.Second) }
