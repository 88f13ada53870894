//go:build unix

package testplugin

import (
	"os"
	"syscall"
	"testing"
)

// socketpair returns both ends of an AF_UNIX stream socketpair as files,
// close-on-exec (set under ForkLock: not every OS has SOCK_CLOEXEC).
func socketpair(t *testing.T) (a, b *os.File) {
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
	return os.NewFile(uintptr(fds[0]), "runtime-end"), os.NewFile(uintptr(fds[1]), "plugin-end")
}
