// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package mux

import "net"

func newTrunkIO(trunk net.Conn) trunkIO { return connIO{trunk} }
