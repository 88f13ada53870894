// SPDX-License-Identifier: Apache-2.0

// The peer's pid from LOCAL_PEERPID.

package accept

import (
	"net"
	"syscall"
)

// Darwin's <sys/un.h>: the socket option level of unix sockets and the
// option that reads the peer's pid. The syscall package does not name them.
const (
	solLocal     = 0
	localPeerPID = 2
)

// PeerPIDSupported says whether PeerPID can tell a peer's pid on this OS.
const PeerPIDSupported = true

// PeerPID reads the connected process's pid (LOCAL_PEERPID), for logs only;
// 0 when it cannot be known.
func PeerPID(c net.Conn) int {
	pid := 0
	controlUnixConn(c, func(fd int) {
		if v, err := syscall.GetsockoptInt(fd, solLocal, localPeerPID); err == nil {
			pid = v
		}
	})
	return pid
}
