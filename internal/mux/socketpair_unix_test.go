//go:build unix

package mux

import (
	"net"
	"os"
	"syscall"
	"testing"
)

// socketpair returns both ends of a connected unix stream socketpair, the
// transport NRI uses for launched plugins. Both ends are close-on-exec, set
// under ForkLock as os/exec expects, since not every OS has SOCK_CLOEXEC.
func socketpair(t testing.TB) (net.Conn, net.Conn) {
	t.Helper()
	syscall.ForkLock.RLock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
	a, b := fileConn(t, fds[0]), fileConn(t, fds[1])
	t.Cleanup(func() {
		a.Close()
		b.Close()
	})
	return a, b
}

func fileConn(t testing.TB, fd int) net.Conn {
	t.Helper()
	f := os.NewFile(uintptr(fd), "socketpair")
	defer f.Close() // FileConn holds its own duplicate
	c, err := net.FileConn(f)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
