// SPDX-License-Identifier: Apache-2.0

package sockpair

import (
	"errors"
	"net"
	"os"
	"testing"
)

// errUnsupported: this OS has no unix socket pairs; the test is skipped.
var errUnsupported = errors.New("sockpair: no unix socket pairs on this OS")

// Files returns both ends of a new socket pair as close-on-exec files,
// closed when the test ends.
func Files(t testing.TB) (a, b *os.File) {
	t.Helper()
	a, b = newFiles(t)
	t.Cleanup(func() {
		a.Close()
		b.Close()
	})
	return a, b
}

// Conns returns both ends of a new socket pair as connections, closed when
// the test ends. They hold the only descriptors of the pair, so closing one
// is what the other end sees.
func Conns(t testing.TB) (a, b net.Conn) {
	t.Helper()
	fa, fb := newFiles(t)
	defer fa.Close()
	defer fb.Close()
	return fileConn(t, fa), fileConn(t, fb)
}

func newFiles(t testing.TB) (a, b *os.File) {
	t.Helper()
	a, b, err := files()
	if err == errUnsupported {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

// fileConn makes a connection of its own duplicate of f's descriptor.
func fileConn(t testing.TB, f *os.File) net.Conn {
	t.Helper()
	c, err := net.FileConn(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
