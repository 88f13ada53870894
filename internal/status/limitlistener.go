// SPDX-License-Identifier: Apache-2.0

// A listener that closes at once the connections beyond a bound.

package status

import (
	"net"
	"sync"
)

// limitListener closes at once the connections accepted beyond max open
// ones, so that a flood of clients costs neither goroutines nor memory.
type limitListener struct {
	net.Listener
	slots chan struct{}
}

func newLimitListener(l net.Listener, max int) net.Listener {
	return &limitListener{Listener: l, slots: make(chan struct{}, max)}
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &limitedConn{Conn: c, release: func() { <-l.slots }}, nil
		default:
			_ = c.Close()
		}
	}
}

// limitedConn gives its slot back once closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
