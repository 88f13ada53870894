// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"net"
	"sync"

	"github.com/nrikit/nrikit/internal/syncx"
)

// listener hands out one logical connection, so that a ttrpc.Server can
// Serve on a mux connection.
type listener struct {
	m       *Mux
	addr    net.Addr
	pending chan *conn // the connection until it is accepted
	closed  chan struct{}
	once    sync.Once
}

// Listen opens connection id at once, so no frame for it is dropped, and
// returns a listener whose first Accept returns that connection. Later
// Accepts block until the listener or the mux is closed, and then fail with
// an error wrapping net.ErrClosed, which makes ttrpc.Server.Serve return.
func (m *Mux) Listen(id ConnID) (net.Listener, error) {
	c, err := m.openWith(id, nil)
	if err != nil {
		return nil, err
	}
	l := &listener{
		m:       m,
		addr:    c.LocalAddr(),
		pending: make(chan *conn, 1),
		closed:  make(chan struct{}),
	}
	l.pending <- c
	return l, nil
}

// Accept returns the connection once, then blocks until Close.
func (l *listener) Accept() (net.Conn, error) {
	if !syncx.Closed(l.closed) {
		select {
		case c := <-l.pending:
			return c, nil
		default:
		}
		select {
		case <-l.closed:
		case <-l.m.done:
			return nil, l.opError(errMuxClosed)
		}
	}
	return nil, l.opError(net.ErrClosed)
}

func (l *listener) opError(err error) error {
	return &net.OpError{Op: "accept", Net: network, Addr: l.addr, Err: err}
}

// Close unblocks Accept and closes the connection if it was never accepted.
// It is idempotent.
func (l *listener) Close() error {
	l.once.Do(func() {
		close(l.closed)
		select {
		case c := <-l.pending:
			c.Close()
		default:
		}
	})
	return nil
}

// Addr returns the local address of the listened connection.
func (l *listener) Addr() net.Addr { return l.addr }
