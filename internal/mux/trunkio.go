// SPDX-License-Identifier: Apache-2.0

// How the mux moves bytes on and off the trunk.

package mux

import (
	"io"
	"net"
)

// trunkIO reads and writes the trunk's bytes; the trunk itself still owns
// deadlines and Close. Only the trunk reader reads, and only a holder of the
// trunk write lock writes, so an implementation may keep per-direction state.
type trunkIO interface {
	io.Reader
	io.Writer
	// writeBuffers writes b's buffers in order, with one system call
	// where they fit, and consumes b as net.Buffers.WriteTo does.
	writeBuffers(b *net.Buffers) (int64, error)
}

// connIO is the trunk's own Read and Write, for a trunk that is not a
// socket of this OS's fast path.
type connIO struct{ net.Conn }

func (c connIO) writeBuffers(b *net.Buffers) (int64, error) { return b.WriteTo(c.Conn) }
