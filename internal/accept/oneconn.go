// A listener that hands out one connection that is already open.

package adaptation

import (
	"net"
	"sync"
)

// connListener lets a ttrpc.Server serve one connection that is already
// open: its first Accept returns the connection, later ones block until the
// listener is closed or done is, and then fail, which ends Serve.
type connListener struct {
	pending chan net.Conn
	closed  chan struct{}
	done    <-chan struct{}
	addr    net.Addr
	once    sync.Once
}

func newConnListener(c net.Conn, done <-chan struct{}) *connListener {
	l := &connListener{pending: make(chan net.Conn, 1), closed: make(chan struct{}), done: done, addr: c.LocalAddr()}
	l.pending <- c
	return l
}

func (l *connListener) Accept() (net.Conn, error) {
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
func (l *connListener) Close() error {
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

func (l *connListener) Addr() net.Addr { return l.addr }
