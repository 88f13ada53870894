// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"runtime"
	"testing"
	"time"
)

// FuzzFrameReader feeds arbitrary bytes as the trunk stream. The mux must not
// panic, must deliver exactly the payloads of complete frames for open IDs,
// must end the way the stream ends, must not allocate for a declared length
// beyond the cap, and must stop its goroutine on Close.
func FuzzFrameReader(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := parseStream(data)

		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m := New(&bytesTrunk{r: bytes.NewReader(data)}, WithReaderBlocked(), WithQueueLimit(2))
		c1, err1 := m.Open(1)
		c2, err2 := m.Open(2)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		m.Unblock()
		got1, got2 := readAllAsync(c1), readAllAsync(c2)
		r1, r2 := await(t, got1, "conn 1"), await(t, got2, "conn 2")
		await(t, m.Done(), "trunk end")
		m.Close()
		runtime.ReadMemStats(&after)

		for i, r := range []readResult{r1, r2} {
			if !bytes.Equal(r.data, want[i]) {
				t.Errorf("conn %d: got %d bytes, want %d", i+1, len(r.data), len(want[i]))
			}
			if !errors.Is(r.err, wantErr) && !(wantErr == io.EOF && r.err == nil) {
				t.Errorf("conn %d: error %v, want %v", i+1, r.err, wantErr)
			}
		}
		if err := m.Err(); !errors.Is(err, wantErr) {
			t.Errorf("Err = %v, want %v", err, wantErr)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(MaxFramePayload+64*len(data)+1<<20) {
			t.Errorf("allocated %d bytes for %d input bytes", grew, len(data))
		}
	})
}

// parseStream is the reference reading of a trunk stream: the payloads for
// connections 1 and 2, and how the stream ends.
func parseStream(data []byte) ([2][]byte, error) {
	var out [2][]byte
	for len(data) >= 8 {
		id, n := binary.BigEndian.Uint32(data), binary.BigEndian.Uint32(data[4:])
		switch {
		case n > MaxFramePayload:
			return out, ErrFrameTooLarge
		case uint64(len(data)-8) < uint64(n):
			return out, io.ErrUnexpectedEOF
		case id == 1 || id == 2:
			out[id-1] = append(out[id-1], data[8:8+n]...)
		}
		data = data[8+n:]
	}
	if len(data) > 0 {
		return out, io.ErrUnexpectedEOF
	}
	return out, io.EOF
}

func readAllAsync(r io.Reader) <-chan readResult {
	return goAsync(func() readResult {
		b, err := io.ReadAll(r)
		return readResult{b, err}
	})
}

// bytesTrunk is a trunk that yields a fixed byte stream and then EOF, so the
// fuzzer needs no sockets. Writes are discarded.
type bytesTrunk struct {
	r *bytes.Reader
}

func (b *bytesTrunk) Read(p []byte) (int, error)       { return b.r.Read(p) }
func (b *bytesTrunk) Write(p []byte) (int, error)      { return len(p), nil }
func (b *bytesTrunk) Close() error                     { return nil }
func (b *bytesTrunk) LocalAddr() net.Addr              { return nil }
func (b *bytesTrunk) RemoteAddr() net.Addr             { return nil }
func (b *bytesTrunk) SetDeadline(time.Time) error      { return nil }
func (b *bytesTrunk) SetReadDeadline(time.Time) error  { return nil }
func (b *bytesTrunk) SetWriteDeadline(time.Time) error { return nil }
