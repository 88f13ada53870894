// SPDX-License-Identifier: Apache-2.0

// The peer's pid from SO_PEERCRED.

package accept

import (
	"net"
	"syscall"
)

// PeerPIDSupported says whether PeerPID can tell a peer's pid on this OS.
const PeerPIDSupported = true

// PeerPID reads the connected process's pid (SO_PEERCRED), for logs only;
// 0 when it cannot be known.
func PeerPID(c net.Conn) int {
	pid := 0
	controlUnixConn(c, func(fd int) {
		cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
		if err == nil {
			pid = int(cred.Pid)
		}
	})
	return pid
}
