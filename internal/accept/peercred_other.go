// SPDX-License-Identifier: Apache-2.0

//go:build !linux && !darwin && !freebsd

// No peer credentials on this OS.

package accept

import "net"

// PeerKnows says what PeerOf tells on this OS: nothing (Windows' AF_UNIX
// reports no credentials).
var PeerKnows = Knows{}

// PeerOf returns Unknown: this OS does not tell who a unix socket's peer is.
func PeerOf(net.Conn) Peer { return Unknown }
