// SPDX-License-Identifier: Apache-2.0

// The peer's pid, uid and gid from SO_PEERCRED, and its executable from /proc.

package accept

import (
	"net"
	"os"
	"strconv"
	"syscall"
)

// PeerKnows says what PeerOf tells on this OS: everything.
var PeerKnows = Knows{PID: true, UID: true, GID: true, Exe: true}

// PeerOf reads what the kernel tells of c's peer: its pid, uid and gid as
// they were when it connected (SO_PEERCRED), and the executable that pid
// runs now, right after the connection was accepted (/proc/<pid>/exe). A
// process that exec'd another program since, or exited and left its pid to
// another, is told as it is now: the executable is the kernel's word at
// accept time, not at connect time.
func PeerOf(c net.Conn) Peer {
	p := Unknown
	controlUnixConn(c, func(fd int) {
		cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
		if err != nil {
			return
		}
		p.PID, p.UID, p.GID = int(cred.Pid), int(cred.Uid), int(cred.Gid)
	})
	if p.PID > 0 {
		if exe, err := os.Readlink("/proc/" + strconv.Itoa(p.PID) + "/exe"); err == nil {
			p.Exe = exe
		}
	}
	return p
}
