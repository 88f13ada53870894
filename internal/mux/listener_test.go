// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"
)

func TestListener(t *testing.T) {
	m, raw := rawPeer(t)
	l, err := m.Listen(2)
	if err != nil {
		t.Fatal(err)
	}
	// The connection exists from Listen on: nothing sent before Accept is lost.
	writeRaw(t, raw, rawFrame(2, []byte("early")))
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r := await(t, readFullAsync(c, 5), "Read"); string(r.data) != "early" {
		t.Fatalf("Read = %q, %v", r.data, r.err)
	}
	if l.Addr().String() != c.LocalAddr().String() {
		t.Errorf("Addr %v, conn %v", l.Addr(), c.LocalAddr())
	}

	accepted := goAsync(func() error {
		_, err := l.Accept()
		return err
	})
	stillBlocked(t, accepted, 50*time.Millisecond, "second Accept")
	l.Close()
	if err := await(t, accepted, "Accept after Close"); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept = %v", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if _, err := c.Write([]byte("x")); err != nil {
		t.Errorf("closing the listener closed the accepted conn: %v", err)
	}
}

// TestListenerCloseUnaccepted frees the ID of a connection never accepted.
func TestListenerCloseUnaccepted(t *testing.T) {
	m, _ := rawPeer(t)
	l, err := m.Listen(1)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept after Close = %v", err)
	}
	mustOpen(t, m, 1)
}

// TestAddr uses a named unix socket, as external plugins do.
func TestAddr(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nri.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dialed := goAsync(func() net.Conn {
		c, _ := net.Dial("unix", path)
		return c
	})
	trunk, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	peer := await(t, dialed, "dial")
	if peer == nil {
		t.Fatal("dial failed")
	}
	defer peer.Close()
	m := New(trunk)
	defer m.Close()
	c := mustOpen(t, m, PluginServiceConn)
	if got := c.LocalAddr(); got.Network() != "nri-mux" || got.String() != path+"#1" {
		t.Errorf("LocalAddr = %s %s", got.Network(), got)
	}
	if got := (Addr{ID: 2}).String(); got != "#2" {
		t.Errorf("Addr without trunk = %s", got)
	}
}
