// SPDX-License-Identifier: Apache-2.0

//go:build linux && !race

package mux

import (
	"syscall"
	"unsafe"
)

// The trunk's reads and writes are raw system calls: on a non-blocking
// socket they return at once, so the Go scheduler need not be told of them.
// Told (syscall.Read and Write), it wakes its monitor thread for each and
// may hand the P to another thread: about a fifth of the runtime side's CPU
// time per plugin call on a 2-core machine (docs/performance.md).

func sysRead(fd uintptr, p []byte) (int, syscall.Errno) {
	n, _, errn := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), errn
}

func sysWrite(fd uintptr, p []byte) (int, syscall.Errno) {
	n, _, errn := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), errn
}

func sysWritev(fd uintptr, iov []syscall.Iovec) (int, syscall.Errno) {
	n, _, errn := syscall.RawSyscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov)))
	return int(n), errn
}
