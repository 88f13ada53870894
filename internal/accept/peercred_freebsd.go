// SPDX-License-Identifier: Apache-2.0

// The peer's uid and gid from LOCAL_PEERCRED.

package accept

import (
	"net"

	"golang.org/x/sys/unix"
)

// PeerKnows says what PeerOf tells on this OS: the uid and gid, not the
// pid (x/sys's xucred has no cr_pid) nor the executable.
var PeerKnows = Knows{UID: true, GID: true}

// PeerOf reads what the kernel tells of c's peer: its uid and effective gid
// as they were when it connected (LOCAL_PEERCRED).
func PeerOf(c net.Conn) Peer {
	p := Unknown
	controlUnixConn(c, func(fd int) {
		if cred, err := unix.GetsockoptXucred(fd, 0, unix.LOCAL_PEERCRED); err == nil {
			p.UID = int(cred.Uid)
			if cred.Ngroups > 0 {
				p.GID = int(cred.Groups[0])
			}
		}
	})
	return p
}
