// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"fmt"
	"net"
	"sync"
	"time"
)

// ConnID identifies a logical connection on the trunk.
type ConnID uint32

const (
	// PluginServiceConn carries the Plugin service: the runtime is the ttrpc
	// client, the plugin the server.
	PluginServiceConn ConnID = 1
	// RuntimeServiceConn carries the Runtime service: the plugin is the
	// ttrpc client, the runtime the server.
	RuntimeServiceConn ConnID = 2
)

const (
	// MaxStartPayload is the largest frame payload a reference Go reader
	// takes where a ttrpc message starts: its ttrpc reads through a
	// 4096-byte bufio.Reader, and a larger frame there makes it drop the
	// connection. A Write is not cut at this size (see the package
	// documentation): ttrpc's own 4096-byte bufio.Writer already writes at
	// most this much of a message's start at once. Code that writes ttrpc
	// messages itself must do the same.
	MaxStartPayload = 4096
	// MaxFramePayload is the largest payload in one frame, written or
	// accepted: a 10-byte ttrpc header plus the 4 MiB ttrpc message limit,
	// the most a reference Go peer puts in one frame and the most its reader
	// accepts.
	MaxFramePayload = 4194314
)

// Mux multiplexes logical connections over one trunk connection. It owns one
// goroutine, the trunk reader, which ends when the trunk ends or on Close.
type Mux struct {
	trunk net.Conn
	io    trunkIO // the trunk's reads and writes
	cfg   config

	unblock     chan struct{}
	unblockOnce sync.Once
	readerDone  chan struct{}

	// wlock is the trunk write lock, held for each whole frame so frames
	// never interleave. It is a channel so a waiting writer can give up.
	wlock chan struct{}
	wbuf  []byte      // header, and a small frame's payload, being written; guarded by wlock
	wvec  net.Buffers // header and a large frame's payload being written, on warr; guarded by wlock
	warr  [2][]byte
	dvec  net.Buffers // a direct connection's message being written, on darr; guarded by wlock
	darr  [3][]byte
	dhdr  [headerSize]byte // the header of its second frame

	wmu      sync.Mutex // guards writer and trunkWDL
	writer   *conn      // connection whose frame is on the trunk now
	trunkWDL time.Time  // write deadline last set on the trunk

	mu    sync.Mutex // guards conns and err
	conns map[ConnID]*conn
	err   error
	done  chan struct{}
}

// New starts multiplexing on trunk, which the Mux then owns. Reading starts
// at once unless WithReaderBlocked is given.
func New(trunk net.Conn, opts ...Option) *Mux {
	m := &Mux{
		trunk:      trunk,
		io:         newTrunkIO(trunk),
		cfg:        newConfig(opts),
		unblock:    make(chan struct{}),
		readerDone: make(chan struct{}),
		wlock:      make(chan struct{}, 1),
		wbuf:       make([]byte, 0, headerSize+MaxStartPayload),
		conns:      make(map[ConnID]*conn),
		done:       make(chan struct{}),
	}
	if !m.cfg.readerBlocked {
		m.Unblock()
	}
	go m.readLoop()
	return m
}

// Unblock starts reading the trunk. It is idempotent.
func (m *Mux) Unblock() {
	m.unblockOnce.Do(func() { close(m.unblock) })
}

// Open opens logical connection id. Frames for id that arrived before Open
// have been dropped.
func (m *Mux) Open(id ConnID) (net.Conn, error) {
	c, err := m.openWith(id, nil)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// openWith opens id, with r taking its bytes if it is a direct connection.
func (m *Mux) openWith(id ConnID, r Receiver) (*conn, error) {
	if id == 0 {
		return nil, ErrReservedID
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return nil, ErrClosed
	}
	if _, ok := m.conns[id]; ok {
		return nil, fmt.Errorf("%w: %d", ErrConnOpen, id)
	}
	c := newConn(m, id)
	c.recv = r
	m.conns[id] = c
	return c, nil
}

// lookup returns the open connection id, or nil.
func (m *Mux) lookup(id ConnID) *conn {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.conns[id]
}

// forget frees the ID of a closed connection.
func (m *Mux) forget(c *conn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.conns[c.id] == c {
		delete(m.conns, c.id)
	}
}

// Close closes the trunk and every logical connection, and returns once the
// trunk reader has stopped. It is idempotent and always returns nil.
func (m *Mux) Close() error {
	m.shutdown(ErrClosed)
	for _, c := range m.openConns() {
		c.shut(errMuxClosed)
	}
	<-m.readerDone
	return nil
}

func (m *Mux) openConns() []*conn {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.openConnsLocked()
}

func (m *Mux) openConnsLocked() []*conn {
	conns := make([]*conn, 0, len(m.conns))
	for _, c := range m.conns {
		conns = append(conns, c)
	}
	return conns
}

// Done is closed when the trunk has ended: on Close, EOF or an error.
func (m *Mux) Done() <-chan struct{} { return m.done }

// Err returns why the trunk ended, or nil while it is up: ErrClosed after
// Close, io.EOF when the peer closed it between frames, a *FrameSizeError,
// or a wrapped read or write error (io.ErrUnexpectedEOF if it ended inside a
// frame).
func (m *Mux) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// shutdown ends the trunk for reason cause; only the first call counts.
// Logical connections keep their queued data and then report cause, except
// on Close, which closes them.
func (m *Mux) shutdown(cause error) {
	m.mu.Lock()
	if m.err != nil {
		m.mu.Unlock()
		return
	}
	m.err = cause
	close(m.done)
	conns := m.openConnsLocked()
	m.mu.Unlock()

	m.trunk.Close()
	if cause == ErrClosed {
		return
	}
	for _, c := range conns {
		c.end(cause)
	}
}
