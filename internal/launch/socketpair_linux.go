// SPDX-License-Identifier: Apache-2.0

package launch

import (
	"os"
	"syscall"
)

// socketpair returns both ends of a connected AF_UNIX stream socket pair.
// SOCK_CLOEXEC is set atomically at creation, so no process forked
// concurrently elsewhere in the runtime inherits either end; the child gets
// its end only through exec.Cmd.ExtraFiles, which dups it to fd 3.
func socketpair(name string) (local, peer *os.File, err error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, os.NewSyscallError("socketpair", err)
	}
	return os.NewFile(uintptr(fds[0]), name+"-runtime"), os.NewFile(uintptr(fds[1]), name+"-plugin"), nil
}
