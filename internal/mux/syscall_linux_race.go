// SPDX-License-Identifier: Apache-2.0

//go:build linux && race

package mux

import (
	"syscall"
	"unsafe"
)

// Under the race detector the trunk's reads and writes go through the
// syscall package, whose Read and Write tell the detector that what one
// goroutine writes to a socket happens before what another reads from it
// (tests run both ends in one process). The raw calls would hide that.

func sysRead(fd uintptr, p []byte) (int, syscall.Errno) {
	n, err := syscall.Read(int(fd), p)
	return max(n, 0), errnoOf(err)
}

func sysWrite(fd uintptr, p []byte) (int, syscall.Errno) {
	n, err := syscall.Write(int(fd), p)
	return max(n, 0), errnoOf(err)
}

func sysWritev(fd uintptr, iov []syscall.Iovec) (int, syscall.Errno) {
	n, _, errn := syscall.Syscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov)))
	return int(n), errn
}

func errnoOf(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	return err.(syscall.Errno)
}
