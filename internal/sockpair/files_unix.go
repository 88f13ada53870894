// SPDX-License-Identifier: Apache-2.0

//go:build unix

package sockpair

import (
	"os"
	"syscall"
)

// files sets close-on-exec under ForkLock, as os/exec expects, since not
// every OS has SOCK_CLOEXEC.
func files() (a, b *os.File, err error) {
	syscall.ForkLock.RLock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, os.NewSyscallError("socketpair", err)
	}
	return os.NewFile(uintptr(fds[0]), "socketpair-a"), os.NewFile(uintptr(fds[1]), "socketpair-b"), nil
}
