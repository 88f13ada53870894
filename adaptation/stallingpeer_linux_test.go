// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nrikit/nrikit/api"
)

// peerReading is how a stalling test peer reads its socket once stalled.
type peerReading int

const (
	readsNothing    peerReading = iota + 1 // never again
	readsByteByByte                        // one byte every 5 ms
	// hoards reads every request and answers it, but only by peeking: no
	// byte ever leaves the socket, so requests pile up unread in it as
	// they would behind a plugin that lags far behind.
	hoards
)

func (r peerReading) String() string {
	return map[peerReading]string{readsNothing: "reads-nothing", readsByteByByte: "reads-a-byte-at-a-time", hoards: "hoards"}[r]
}

// soPeekOff is Linux's SO_PEEK_OFF: with it set, each MSG_PEEK read starts
// where the last one ended.
const soPeekOff = 42

// stallingTrunk is a test peer's end of its socket: it reads normally until
// stall, and then as its mode says.
type stallingTrunk struct {
	*net.UnixConn
	mode      peerReading
	stalled   chan struct{}
	closed    chan struct{}
	closeOnce sync.Once
}

func (c *stallingTrunk) stall() error {
	if c.mode == hoards {
		rc, err := c.UnixConn.SyscallConn()
		if err != nil {
			return err
		}
		var serr error
		if err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, soPeekOff, 0)
		}); err != nil {
			return err
		}
		if serr != nil {
			return serr
		}
	}
	close(c.stalled)
	// A read under way would still take the next bytes: cut it short.
	return c.UnixConn.SetReadDeadline(time.Unix(1, 0))
}

func (c *stallingTrunk) Read(b []byte) (int, error) {
	for {
		n, err := c.read(b)
		if n > 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
			return n, err
		}
		// stall cut the read short; read again, the stalled way.
	}
}

func (c *stallingTrunk) read(b []byte) (int, error) {
	select {
	case <-c.stalled:
		_ = c.UnixConn.SetReadDeadline(time.Time{})
	default:
		return c.UnixConn.Read(b)
	}
	switch c.mode {
	case readsByteByByte:
		t := time.NewTimer(5 * time.Millisecond) // how slowly this peer reads, not a wait
		defer t.Stop()
		select {
		case <-t.C:
		case <-c.closed:
			return 0, net.ErrClosed
		}
		return c.UnixConn.Read(b[:min(len(b), 1)])
	case hoards:
		return c.peek(b)
	}
	<-c.closed
	return 0, net.ErrClosed
}

func (c *stallingTrunk) peek(b []byte) (int, error) {
	rc, err := c.UnixConn.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		n, _, rerr = syscall.Recvfrom(int(fd), b, syscall.MSG_PEEK)
		return rerr != syscall.EAGAIN
	})
	switch {
	case err != nil:
		return 0, err
	case rerr != nil:
		return 0, rerr
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *stallingTrunk) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.UnixConn.Close()
}

// stallingPeer is a plugin in the test process, on its own mux and ttrpc,
// registered on one protocol revision, that answers every call at once
// until it stalls.
type stallingPeer struct {
	*ttrpcPeer
	trunk *stallingTrunk
}

// dialStallingPeer registers idx-name on revision rev ("v1alpha1" or
// "v1beta1"), subscribed to events, with policy.
func dialStallingPeer(t *testing.T, socket, rev string, mode peerReading, idx, name string, events api.EventMask, policy *api.FailurePolicy) *stallingPeer {
	t.Helper()
	raw := dialSocket(t, socket)
	trunk := &stallingTrunk{UnixConn: raw.(*net.UnixConn), mode: mode, stalled: make(chan struct{}), closed: make(chan struct{})}
	methods := basicMethods(events, policy)
	for _, ev := range []string{"RunPodSandbox", "StopPodSandbox", "RemovePodSandbox", "CreateContainer", "ValidateContainerAdjustment"} {
		methods[ev] = func(context.Context, func(any) error) (any, error) { return &api.Empty{}, nil }
	}
	p := &stallingPeer{ttrpcPeerOver(t, trunk, "nri.pkg.api."+rev+".Plugin", methods), trunk}
	if err := p.register("nri.pkg.api."+rev+".Runtime", idx, name); err != nil {
		t.Fatalf("RegisterPlugin on %s: %v", rev, err)
	}
	return p
}

func (p *stallingPeer) stall(t *testing.T) {
	t.Helper()
	if err := p.trunk.stall(); err != nil {
		t.Fatal(err)
	}
}
