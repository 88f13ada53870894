// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"bytes"
	"io"
	"slices"
	"testing"
	"time"
)

// TestBackpressure fills a small queue: the trunk reader waits (frames for
// other connections wait too) instead of dropping data or failing the trunk.
func TestBackpressure(t *testing.T) {
	m, raw := rawPeer(t, WithQueueLimit(2))
	c1, c2 := mustOpen(t, m, 1), mustOpen(t, m, 2)
	writeRaw(t, raw, rawFrame(1, []byte("a")), rawFrame(1, []byte("b")),
		rawFrame(1, []byte("c")), rawFrame(2, []byte("z")))

	other := readFullAsync(c2, 1)
	stillBlocked(t, other, 100*time.Millisecond, "conn 2 behind a full queue")
	if r := await(t, readFullAsync(c1, 3), "conn 1"); string(r.data) != "abc" {
		t.Fatalf("conn 1 = %q, %v", r.data, r.err)
	}
	if r := await(t, other, "conn 2"); string(r.data) != "z" {
		t.Fatalf("conn 2 = %q, %v", r.data, r.err)
	}
	if err := m.Err(); err != nil {
		t.Fatalf("mux ended: %v", err)
	}
}

// TestSlowConsumer streams many tiny frames into a queue of 4 frames and
// reads them in small pieces: every byte arrives, the trunk survives.
func TestSlowConsumer(t *testing.T) {
	m, raw := rawPeer(t, WithQueueLimit(4))
	c := mustOpen(t, m, 1)
	msg := pattern(11, 300_000)
	sent := goAsync(func() error {
		for i, rest := 0, msg; len(rest) > 0; i++ {
			n := min(len(rest), 1+(i*13)%100)
			if _, err := raw.Write(rawFrame(1, rest[:n])); err != nil {
				return err
			}
			rest = rest[n:]
		}
		return nil
	})
	var got bytes.Buffer
	buf := make([]byte, 5)
	for got.Len() < len(msg) {
		n, err := c.Read(buf)
		if err != nil {
			t.Fatalf("after %d bytes: %v", got.Len(), err)
		}
		got.Write(buf[:n])
	}
	if err := await(t, sent, "sender"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), msg) {
		t.Fatal("data differs")
	}
	if err := m.Err(); err != nil {
		t.Fatalf("mux ended: %v", err)
	}
}

// TestQueueByteBound holds back a second large frame until the first is read.
func TestQueueByteBound(t *testing.T) {
	m, raw := rawPeer(t)
	c1, c2 := mustOpen(t, m, 1), mustOpen(t, m, 2)
	big := pattern(1, MaxFramePayload)
	stream := slices.Concat(rawFrame(1, big), rawFrame(1, big), rawFrame(1, []byte("x")), rawFrame(2, []byte("z")))
	sent := goAsync(func() error {
		_, err := raw.Write(stream)
		return err
	})
	other := readFullAsync(c2, 1)
	stillBlocked(t, other, 100*time.Millisecond, "conn 2 behind a queue full of bytes")
	r := await(t, readFullAsync(c1, 2*len(big)+1), "conn 1")
	if r.err != nil || !bytes.Equal(r.data[len(big):2*len(big)], big) {
		t.Fatalf("conn 1: %d bytes, %v", len(r.data), r.err)
	}
	await(t, other, "conn 2")
	if err := await(t, sent, "sender"); err != nil {
		t.Fatal(err)
	}
}

// TestCloseReleasesBackpressure closes the connection with the full queue,
// which must release the trunk reader; so must closing the mux.
func TestCloseReleasesBackpressure(t *testing.T) {
	m, raw := rawPeer(t, WithQueueLimit(1))
	c1, c2 := mustOpen(t, m, 1), mustOpen(t, m, 2)
	writeRaw(t, raw, rawFrame(1, []byte("a")), rawFrame(1, []byte("b")), rawFrame(2, []byte("z")))
	other := readFullAsync(c2, 1)
	stillBlocked(t, other, 50*time.Millisecond, "conn 2 behind a full queue")
	c1.Close()
	if r := await(t, other, "conn 2"); string(r.data) != "z" {
		t.Fatalf("conn 2 = %q, %v", r.data, r.err)
	}

	mustOpen(t, m, 3)
	writeRaw(t, raw, rawFrame(3, []byte("a")), rawFrame(3, []byte("b")))
	closed := goAsync(m.Close)
	if err := await(t, closed, "mux Close with the reader waiting"); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(c2); err == nil {
		t.Fatal("conn 2 still readable after Close")
	}
}
