// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"bufio"
	"bytes"
	"io"
	"testing"
	"time"
)

// TestLargeWritesArriveWholeThroughSlowReads: a message many times the
// socket's buffer goes out in several writes of whatever the peer's reads
// make room for, and arrives in its frames, byte for byte.
func TestLargeWritesArriveWholeThroughSlowReads(t *testing.T) {
	m, raw := rawPeer(t)
	d, _ := openDirect(t, m, 1)
	c := mustOpen(t, m, 2)
	direct := pattern(1, 3<<20)
	plain := pattern(2, 1<<20)
	sent := goAsync(func() error { return d.Send(message(direct), time.Now().Add(waitLimit), nil) })

	// The peer reads in small pieces, so every write of the sender is cut short.
	r := bufio.NewReaderSize(slowReader{raw}, 16)
	got := map[uint32][]byte{}
	var sizes []int
	for len(got[1]) < len(direct) {
		id, p, err := readRawFrame(r)
		if err != nil {
			t.Fatalf("reading the Send's frames: %v", err)
		}
		got[id] = append(got[id], p...)
		sizes = append(sizes, len(p))
	}
	if err := await(t, sent, "Send"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got[1], direct) || len(sizes) != 2 || sizes[0] != MaxStartPayload {
		t.Fatalf("Send arrived as frames of %v bytes (equal: %v), want %d and the rest",
			sizes, bytes.Equal(got[1], direct), MaxStartPayload)
	}

	written := writeAsync(c, plain)
	id, p, err := readRawFrame(r)
	if err != nil || id != 2 || !bytes.Equal(p, plain) {
		t.Fatalf("Write arrived as frame %d of %d bytes (%v)", id, len(p), err)
	}
	if w := await(t, written, "Write"); w.err != nil || w.n != len(plain) {
		t.Fatalf("Write = %d, %v", w.n, w.err)
	}
}

// slowReader reads at most 1000 bytes at a time.
type slowReader struct{ r io.Reader }

func (s slowReader) Read(p []byte) (int, error) { return s.r.Read(p[:min(len(p), 1000)]) }
