// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"errors"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/nrikit/nrikit/internal/sockpair"
)

// TestSocketTrunksTakeTheRawPath: the suite's socket pairs, like a runtime's
// plugin sockets, go through the raw system calls, so the tests above test
// that path; any other trunk goes through its own Read and Write.
func TestSocketTrunksTakeTheRawPath(t *testing.T) {
	a, _ := sockpair.Conns(t)
	if _, ok := newTrunkIO(a).(*rawIO); !ok {
		t.Errorf("a socket pair's trunk I/O is %T, want *rawIO", newTrunkIO(a))
	}
	// A type that wraps a socket may read and write it its own way.
	if _, ok := newTrunkIO(wrapped{a.(*net.UnixConn)}).(connIO); !ok {
		t.Errorf("a wrapped socket's trunk I/O is %T, want connIO", newTrunkIO(wrapped{a.(*net.UnixConn)}))
	}
	// A descriptor someone put in blocking mode could block a raw call.
	b, _ := sockpair.Conns(t)
	setBlocking(t, b, true)
	if _, ok := newTrunkIO(b).(connIO); !ok {
		t.Errorf("a blocking socket's trunk I/O is %T, want connIO", newTrunkIO(b))
	}
	setBlocking(t, b, false)
	p, q := net.Pipe()
	defer p.Close()
	defer q.Close()
	if _, ok := newTrunkIO(p).(connIO); !ok {
		t.Errorf("a pipe's trunk I/O is %T, want connIO", newTrunkIO(p))
	}
}

type wrapped struct{ *net.UnixConn }

func setBlocking(t *testing.T, c net.Conn, blocking bool) {
	t.Helper()
	var setErr error
	rc, err := c.(syscall.Conn).SyscallConn()
	if err == nil {
		err = rc.Control(func(fd uintptr) { setErr = syscall.SetNonblock(int(fd), !blocking) })
	}
	if err = errors.Join(err, setErr); err != nil {
		t.Fatal(err)
	}
}

// TestRawIOErrorsReadAsNetConns: what the raw path returns once the peer is
// gone is what net.Conn returns in its place, word for word: io.EOF from a
// read, a broken pipe from a write.
func TestRawIOErrorsReadAsNetConns(t *testing.T) {
	results := func(rw io.ReadWriter) (readErr, writeErr error) {
		_, readErr = rw.Read(make([]byte, 10))
		_, writeErr = rw.Write([]byte("hello"))
		return readErr, writeErr
	}
	a, b := sockpair.Conns(t)
	b.Close()
	rawRead, rawWrite := results(newTrunkIO(a))
	c, d := sockpair.Conns(t)
	d.Close()
	netRead, netWrite := results(c)

	if rawRead != io.EOF || netRead != io.EOF {
		t.Errorf("read from a closed peer: raw %v, net.Conn %v; want io.EOF", rawRead, netRead)
	}
	if !errors.Is(rawWrite, syscall.EPIPE) || rawWrite.Error() != netWrite.Error() {
		t.Errorf("write to a closed peer: raw %q, net.Conn %q; want the same broken pipe", rawWrite, netWrite)
	}
}
