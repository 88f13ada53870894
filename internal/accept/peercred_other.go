// SPDX-License-Identifier: Apache-2.0

//go:build !linux && !darwin

// No peer pid on this OS.

package accept

import "net"

// PeerPIDSupported says whether PeerPID can tell a peer's pid on this OS.
// Here it cannot: FreeBSD's getpeereid and Windows' AF_UNIX report no pid.
const PeerPIDSupported = false

// PeerPID returns 0 (unknown): this OS does not report a unix socket peer's
// pid, which nrikit only uses in log lines.
func PeerPID(net.Conn) int { return 0 }
