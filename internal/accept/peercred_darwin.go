// SPDX-License-Identifier: Apache-2.0

// The peer's pid from LOCAL_PEERPID, its uid and gid from LOCAL_PEERCRED.

package accept

import (
	"net"

	"golang.org/x/sys/unix"
)

// PeerKnows says what PeerOf tells on this OS: not the executable, which
// needs libproc.
var PeerKnows = Knows{PID: true, UID: true, GID: true}

// PeerOf reads what the kernel tells of c's peer: its pid (LOCAL_PEERPID),
// and its uid and effective gid (LOCAL_PEERCRED), as they were when it
// connected.
func PeerOf(c net.Conn) Peer {
	p := Unknown
	controlUnixConn(c, func(fd int) {
		if v, err := unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID); err == nil {
			p.PID = v
		}
		if cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED); err == nil {
			p.UID = int(cred.Uid)
			if cred.Ngroups > 0 {
				p.GID = int(cred.Groups[0])
			}
		}
	})
	return p
}
