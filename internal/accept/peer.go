// SPDX-License-Identifier: Apache-2.0

// Peer: what the kernel tells of the process at the other end of a unix socket.

package accept

// Peer is what the kernel tells of the process that connected to a unix
// socket, as it was when it connected (SO_PEERCRED and the like): not a
// secret it proves, but the kernel's word, which a local process cannot
// forge. Its executable is read right after the connection is accepted.
type Peer struct {
	PID      int    // 0: unknown
	UID, GID int    // -1: unknown; GID is the process's effective group
	Exe      string // the path of its executable; "": unknown
}

// Unknown is a Peer of which nothing is known.
var Unknown = Peer{UID: -1, GID: -1}

// Knows says which of a Peer's fields this OS tells (PeerKnows).
type Knows struct {
	PID, UID, GID, Exe bool
}
