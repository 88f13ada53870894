// SPDX-License-Identifier: Apache-2.0

// A listener that hands out one connection that is already open.

package accept

import (
	"net"
	"sync"
)

// oneConn lets a ttrpc.Server serve one connection that is already
// open: its first Accept returns the connection, later ones block until the
// listener is closed or done is, and then fail, which ends Serve.
type oneConn struct {
	pending chan net.Conn
	closed  chan struct{}
	done    <-chan struct{}
	addr    net.Addr
	once    sync.Once
}

// OneConn returns a listener whose first Accept returns c; later ones block
// until the listener is closed or done is, and then fail, which ends a
// server's Serve. Closing it closes c if it was never accepted.
func OneConn(c net.Conn, done <-chan struct{}) net.Listener {
	l := &oneConn{pending: make(chan net.Conn, 1), closed: make(chan struct{}), done: done, addr: c.LocalAddr()}
	l.pending <- c
	return l
}

func (l *oneConn) Accept() (net.Conn, error) {
	select {
	case <-l.closed:
	default:
		select {
		case c := <-l.pending:
			return c, nil
		default:
		}
		select {
		case <-l.closed:
		case <-l.done:
		}
	}
	return nil, &net.OpError{Op: "accept", Net: l.addr.Network(), Addr: l.addr, Err: net.ErrClosed}
}

// Close unblocks Accept and closes the connection if it was never accepted.
func (l *oneConn) Close() error {
	l.once.Do(func() {
		close(l.closed)
		select {
		case c := <-l.pending:
			_ = c.Close()
		default:
		}
	})
	return nil
}

func (l *oneConn) Addr() net.Addr { return l.addr }
