// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// recorder is a Receiver that keeps what it is handed.
type recorder struct {
	mu     sync.Mutex
	got    bytes.Buffer
	ended  []error
	update chan struct{} // a token after each call
}

func newRecorder() *recorder { return &recorder{update: make(chan struct{}, 1)} }

func (r *recorder) Receive(p []byte) {
	r.mu.Lock()
	r.got.Write(p)
	r.mu.Unlock()
	r.poke()
}

func (r *recorder) Ended(err error) {
	r.mu.Lock()
	r.ended = append(r.ended, err)
	r.mu.Unlock()
	r.poke()
}

func (r *recorder) poke() {
	select {
	case r.update <- struct{}{}:
	default:
	}
}

// waitFor waits until cond holds of what r recorded.
func (r *recorder) waitFor(t *testing.T, what string, cond func(got []byte, ended []error) bool) {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		r.mu.Lock()
		ok := cond(r.got.Bytes(), r.ended)
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.update:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func openDirect(t *testing.T, m *Mux, id ConnID) (*Direct, *recorder) {
	t.Helper()
	r := newRecorder()
	d, err := m.OpenDirect(id, r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, r
}

// message is payload behind room for the frame header, as Send takes it.
func message(payload []byte) []byte { return append(make([]byte, FrameHeaderSize), payload...) }

// TestDirectSendFramesAsTTRPC: a message goes out as ttrpc's writes through
// the reference writer would: up to MaxStartPayload bytes in one frame, a
// larger one as a frame of MaxStartPayload bytes and one of the rest.
func TestDirectSendFramesAsTTRPC(t *testing.T) {
	m, raw := rawPeer(t)
	d, _ := openDirect(t, m, PluginServiceConn)
	for _, n := range []int{1, 100, MaxStartPayload, MaxStartPayload + 1, 1 << 20} {
		payload := pattern(n, n)
		sent := goAsync(func() error { return d.Send(message(payload), time.Time{}, nil) })
		var got []byte
		var frames []int
		for len(got) < n {
			id, p, err := readRawFrame(raw)
			if err != nil || id != uint32(PluginServiceConn) {
				t.Fatalf("frame %d of %d bytes: %v", id, len(p), err)
			}
			got = append(got, p...)
			frames = append(frames, len(p))
		}
		if err := await(t, sent, "Send"); err != nil {
			t.Fatal(err)
		}
		want := []int{n}
		if n > MaxStartPayload {
			want = []int{MaxStartPayload, n - MaxStartPayload}
		}
		if !bytes.Equal(got, payload) || len(frames) != len(want) || frames[0] != want[0] || frames[len(frames)-1] != want[len(want)-1] {
			t.Errorf("%d bytes sent in frames %v, want %v (payload intact: %v)", n, frames, want, bytes.Equal(got, payload))
		}
	}
}

// TestDirectReceives: the trunk reader hands a direct connection's bytes,
// in order, to its receiver, and frames for other connections to them;
// the receiver is told once that the trunk ended, io.EOF between frames.
func TestDirectReceives(t *testing.T) {
	m, raw := rawPeer(t, WithReaderBlocked())
	_, r := openDirect(t, m, 1)
	queued := mustOpen(t, m, 2)
	m.Unblock()
	big := pattern(3, 100_000) // beyond the reader's buffer: handed over in pieces
	writeRaw(t, raw, rawFrame(1, []byte("ab")), rawFrame(2, []byte("queued")), rawFrame(1, nil), rawFrame(1, big))
	want := append([]byte("ab"), big...)
	r.waitFor(t, "the direct connection's bytes", func(got []byte, _ []error) bool { return len(got) >= len(want) })
	if rd := await(t, readFullAsync(queued, 6), "the queued connection"); string(rd.data) != "queued" {
		t.Fatalf("queued connection read %q, %v", rd.data, rd.err)
	}
	raw.Close()
	r.waitFor(t, "the end", func(_ []byte, ended []error) bool { return len(ended) > 0 })
	m.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !bytes.Equal(r.got.Bytes(), want) {
		t.Errorf("received %d bytes, not the %d sent", r.got.Len(), len(want))
	}
	if len(r.ended) != 1 || r.ended[0] != io.EOF {
		t.Errorf("told of the end %v, want io.EOF once", r.ended)
	}
}

// TestDirectEndedCutShort: a trunk cut inside a frame tells the receiver
// with io.ErrUnexpectedEOF, and Close after that tells it nothing more.
func TestDirectEndedCutShort(t *testing.T) {
	m, raw := rawPeer(t)
	_, r := openDirect(t, m, 1)
	writeRaw(t, raw, rawFrame(1, []byte("whole"))[:10])
	raw.Close()
	r.waitFor(t, "the end", func(_ []byte, ended []error) bool { return len(ended) > 0 })
	m.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	var op *net.OpError
	if len(r.ended) != 1 || !errors.As(r.ended[0], &op) || !errors.Is(r.ended[0], io.ErrUnexpectedEOF) {
		t.Errorf("told of the end %v, want one *net.OpError for a cut frame", r.ended)
	}
}

// TestDirectClose: closing tells the receiver, once, with an error matching
// net.ErrClosed; a Send after it fails.
func TestDirectClose(t *testing.T) {
	m, _ := rawPeer(t)
	d, r := openDirect(t, m, 1)
	d.Close()
	d.Close()
	if err := d.Send(message([]byte("x")), time.Time{}, nil); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Send after Close = %v", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.ended) != 1 || !errors.Is(r.ended[0], net.ErrClosed) {
		t.Errorf("told of the end %v, want net.ErrClosed once", r.ended)
	}
}

// TestDirectSendBoundByDeadline: a peer that reads nothing holds a Send
// until its deadline and no longer; cut inside the message, the trunk is out
// of step and the mux ends. A Send waiting for a trunk held by another
// connection's write gives up when its stop channel closes, having written
// nothing.
func TestDirectSendBoundByDeadline(t *testing.T) {
	m, raw := rawPeer(t)
	d, _ := openDirect(t, m, 1)
	start := time.Now()
	err := d.Send(message(make([]byte, 4<<20)), start.Add(300*time.Millisecond), nil)
	if !isTimeout(err) {
		t.Fatalf("Send to a peer that reads nothing = %v, want a timeout", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Send took %v with a deadline of 300ms", took)
	}
	// On a loaded machine the deadline may pass before the write begins:
	// then nothing went out, and the trunk is still in step.
	raw.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, _ := raw.Read(make([]byte, 1)); n > 0 {
		await(t, m.Done(), "the mux to end after a cut message")
	} else if m.Err() != nil {
		t.Fatalf("a Send that wrote nothing ended the mux: %v", m.Err())
	}

	m, raw = rawPeer(t)
	d, _ = openDirect(t, m, 1)
	other := mustOpen(t, m, 2)
	blocked := writeAsync(other, make([]byte, 4<<20)) // holds the trunk
	var h [FrameHeaderSize]byte                       // its frame is on its way
	if _, err := io.ReadFull(raw, h[:]); err != nil || parseHeader(h[:]).id != 2 {
		t.Fatalf("first frame %v: %v", h, err)
	}
	stop := make(chan struct{})
	sent := goAsync(func() error { return d.Send(message([]byte("late")), time.Time{}, stop) })
	stillBlocked(t, sent, 50*time.Millisecond, "a Send behind another connection's write")
	close(stop)
	if err := await(t, sent, "Send"); !errors.Is(err, ErrStopped) {
		t.Fatalf("stopped Send = %v, want ErrStopped", err)
	}
	other.SetWriteDeadline(time.Now())
	await(t, blocked, "the other write")
}

// TestDirectSendAllocatesNothing: a message goes out without an allocation,
// in one frame or in two.
func TestDirectSendAllocatesNothing(t *testing.T) {
	m, raw := rawPeer(t)
	d, _ := openDirect(t, m, 1)
	go func() { _, _ = io.Copy(io.Discard, raw) }()
	for _, n := range []int{100, 64 << 10} {
		msg := message(make([]byte, n))
		if a := testing.AllocsPerRun(50, func() {
			if err := d.Send(msg, time.Time{}, nil); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("a Send of %d bytes allocates %v times", n, a)
		}
	}
}
