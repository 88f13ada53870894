// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/internal/syncx"
)

func TestReadDeadline(t *testing.T) {
	m, raw := rawPeer(t)
	c := mustOpen(t, m, 1)

	start := time.Now()
	c.SetReadDeadline(start.Add(50 * time.Millisecond))
	r := await(t, readAsync(c, make([]byte, 1)), "Read to time out")
	if !isTimeout(r.err) {
		t.Fatalf("Read = %v, want a timeout", r.err)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Fatalf("timed out after %v, before the deadline", d)
	}

	// A deadline in the past fails at once, even with data queued.
	writeRaw(t, raw, rawFrame(1, []byte("data")))
	c.SetReadDeadline(time.Now().Add(-time.Second))
	if _, err := c.Read(make([]byte, 4)); !isTimeout(err) {
		t.Fatalf("Read past deadline = %v", err)
	}
	// Resetting to zero removes it.
	c.SetReadDeadline(time.Time{})
	if r := await(t, readFullAsync(c, 4), "Read"); string(r.data) != "data" {
		t.Fatalf("Read = %q, %v", r.data, r.err)
	}
	if err := m.Err(); err != nil {
		t.Fatalf("a read timeout ended the mux: %v", err)
	}
}

// TestReadDeadlineMoved moves the deadline of a blocked Read, later and then
// earlier; the Read must follow.
func TestReadDeadlineMoved(t *testing.T) {
	m, _ := rawPeer(t)
	c := mustOpen(t, m, 1)
	c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	read := readAsync(c, make([]byte, 1))
	c.SetReadDeadline(time.Now().Add(time.Hour))
	stillBlocked(t, read, 400*time.Millisecond, "Read with an extended deadline")
	c.SetReadDeadline(time.Now())
	if r := await(t, read, "Read"); !isTimeout(r.err) {
		t.Fatalf("Read = %v, want a timeout", r.err)
	}
}

// TestReadDeadlineExtendedAfterExpiry reuses a connection after a timeout.
func TestReadDeadlineExtendedAfterExpiry(t *testing.T) {
	m, raw := rawPeer(t)
	c := mustOpen(t, m, 1)
	c.SetReadDeadline(time.Now().Add(-time.Second))
	if _, err := c.Read(make([]byte, 1)); !isTimeout(err) {
		t.Fatalf("Read = %v", err)
	}
	c.SetReadDeadline(time.Now().Add(time.Hour))
	read := readFullAsync(c, 2)
	stillBlocked(t, read, 50*time.Millisecond, "Read after extending an expired deadline")
	writeRaw(t, raw, rawFrame(1, []byte("ok")))
	if r := await(t, read, "Read"); string(r.data) != "ok" {
		t.Fatalf("Read = %q, %v", r.data, r.err)
	}
}

func TestWriteDeadlinePast(t *testing.T) {
	m, raw := rawPeer(t)
	c := mustOpen(t, m, 1)
	c.SetWriteDeadline(time.Now().Add(-time.Second))
	if n, err := c.Write([]byte("x")); n != 0 || !isTimeout(err) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	c.SetDeadline(time.Time{})
	if _, err := c.Write([]byte("y")); err != nil {
		t.Fatal(err)
	}
	if _, p, err := readRawFrame(raw); string(p) != "y" {
		t.Fatalf("frame %q, %v", p, err)
	}
}

// TestWriteDeadlineWaitingForTrunk times out a Write while another frame
// holds the trunk: the mux stays up and the next Write goes through whole.
func TestWriteDeadlineWaitingForTrunk(t *testing.T) {
	m, raw := rawPeer(t)
	c := mustOpen(t, m, 1)
	m.wlock <- struct{}{} // as if another connection were mid-frame
	c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	r := await(t, writeAsync(c, []byte("late")), "Write to time out")
	<-m.wlock
	if r.n != 0 || !isTimeout(r.err) {
		t.Fatalf("Write = %d, %v", r.n, r.err)
	}
	if err := m.Err(); err != nil {
		t.Fatalf("mux ended: %v", err)
	}
	c.SetWriteDeadline(time.Time{})
	if _, err := c.Write([]byte("next")); err != nil {
		t.Fatal(err)
	}
	if _, p, err := readRawFrame(raw); string(p) != "next" {
		t.Fatalf("frame %q, %v", p, err)
	}
}

// TestWriteTimeoutMidFrame lets the peer read only part of a frame: the
// trunk is then out of step, so the whole mux must close and say why.
// net.Pipe is used because it hands over partial writes deterministically.
func TestWriteTimeoutMidFrame(t *testing.T) {
	trunk, raw := net.Pipe()
	defer raw.Close()
	m := New(trunk)
	defer m.Close()
	c := mustOpen(t, m, 1)
	written := writeAsync(c, pattern(1, 3*MaxStartPayload))
	if _, err := io.ReadFull(raw, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	// The frame is in flight: the new deadline must reach the trunk.
	c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	r := await(t, written, "Write to time out")
	if r.n != 0 || !isTimeout(r.err) {
		t.Fatalf("Write = %d, %v", r.n, r.err)
	}
	await(t, m.Done(), "mux teardown")
	if err := m.Err(); !errors.Is(err, os.ErrDeadlineExceeded) ||
		!strings.Contains(err.Error(), "after 10 of 12296 frame bytes") {
		t.Fatalf("Err = %v", err)
	}
}

// TestWriteDeadlineExtendedMidFrame extends the deadline of a Write that is
// stuck on the trunk; it must not time out at the old deadline.
func TestWriteDeadlineExtendedMidFrame(t *testing.T) {
	trunk, raw := net.Pipe()
	defer raw.Close()
	m := New(trunk)
	defer m.Close()
	c := mustOpen(t, m, 1)
	msg := pattern(2, 2*MaxStartPayload)
	written := writeAsync(c, msg)
	if _, err := io.ReadFull(raw, make([]byte, 10)); err != nil { // the frame is in flight
		t.Fatal(err)
	}
	c.SetWriteDeadline(time.Now().Add(200 * time.Millisecond))
	c.SetWriteDeadline(time.Now().Add(time.Hour))
	stillBlocked(t, written, 400*time.Millisecond, "Write with an extended deadline")

	// The rest of the one frame: the payload after its first 2 bytes.
	got := make([]byte, len(msg)-2)
	if _, err := io.ReadFull(raw, got); err != nil {
		t.Fatal(err)
	}
	if r := await(t, written, "Write"); r.err != nil || r.n != len(msg) {
		t.Fatalf("Write = %d, %v", r.n, r.err)
	}
	if !bytes.Equal(got, msg[2:]) {
		t.Fatal("payload differs")
	}
	if err := m.Err(); err != nil {
		t.Fatalf("mux ended: %v", err)
	}
}

// TestDeadlineRearmed moves a deadline back and forth many times, so that
// runs of its one timer for times already moved from come late: only the
// last time set counts, and the deadline is reusable after it expired.
func TestDeadlineRearmed(t *testing.T) {
	d := newDeadline()
	for range 200 {
		d.set(time.Now().Add(time.Millisecond))
		d.set(time.Now().Add(time.Hour))
	}
	stillBlocked(t, d.wait(), 100*time.Millisecond, "a deadline moved an hour ahead")
	d.set(time.Now().Add(10 * time.Millisecond))
	await(t, d.wait(), "the deadline to expire")
	d.set(time.Time{})
	if syncx.Closed(d.wait()) {
		t.Fatal("no deadline, yet expired")
	}
	d.set(time.Now().Add(10 * time.Millisecond))
	await(t, d.wait(), "the deadline to expire a second time")
}

// BenchmarkWriteUnderDeadline is a small Write under a deadline of its own,
// as a runtime bounds each call to a plugin: moving the deadline every time
// must not cost an allocation.
func BenchmarkWriteUnderDeadline(b *testing.B) {
	m, raw := rawPeer(b)
	c := mustOpen(b, m, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		_, _ = io.Copy(io.Discard, raw)
	}()
	msg := make([]byte, 512)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Write(msg); err != nil {
			b.Fatal(err)
		}
		if err := c.SetWriteDeadline(time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	m.Close()
	<-drained
}
