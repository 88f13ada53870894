// SPDX-License-Identifier: Apache-2.0

//go:build linux || darwin || freebsd

// Reading a unix socket's file descriptor.

package accept

import "net"

// controlUnixConn runs fn on c's file descriptor when c is a unix socket.
func controlUnixConn(c net.Conn, fn func(fd int)) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return
	}
	_ = raw.Control(func(fd uintptr) { fn(int(fd)) })
}
