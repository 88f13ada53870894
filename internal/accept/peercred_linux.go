// The peer's pid from SO_PEERCRED.

package adaptation

import (
	"net"
	"syscall"
)

// peerPIDSupported says whether peerPID can tell a peer's pid on this OS.
const peerPIDSupported = true

// peerPID reads the connected process's pid (SO_PEERCRED), for logs only;
// 0 when it cannot be known.
func peerPID(c net.Conn) int {
	pid := 0
	controlUnixConn(c, func(fd int) {
		cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
		if err == nil {
			pid = int(cred.Pid)
		}
	})
	return pid
}
