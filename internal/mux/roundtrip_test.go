// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
)

var messageSizes = []int{1, 100, MaxStartPayload, MaxStartPayload + 1, 9061, 4 << 20}

// TestWriteOneFrame checks on the raw trunk that each Write, up to
// MaxFramePayload bytes, goes out as one frame, as the reference writer
// sends it, and that the bytes arrive intact.
func TestWriteOneFrame(t *testing.T) {
	for _, size := range append(messageSizes, MaxFramePayload) {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			m, raw := rawPeer(t)
			c := mustOpen(t, m, PluginServiceConn)
			msg := pattern(size, size)
			written := writeAsync(c, msg)
			id, p, err := readRawFrame(raw)
			if err != nil {
				t.Fatal(err)
			}
			if id != uint32(PluginServiceConn) || len(p) != size {
				t.Fatalf("frame: id %d, %d bytes, want id %d, %d bytes", id, len(p), PluginServiceConn, size)
			}
			if r := await(t, written, "Write"); r.err != nil || r.n != size {
				t.Fatalf("Write = %d, %v", r.n, r.err)
			}
			if !bytes.Equal(p, msg) {
				t.Fatal("payload differs")
			}
		})
	}
}

// TestWriteCutsAtMaxFramePayload: a Write larger than the largest frame a
// reference reader accepts goes out as frames of that size and the rest.
func TestWriteCutsAtMaxFramePayload(t *testing.T) {
	m, raw := rawPeer(t)
	c := mustOpen(t, m, PluginServiceConn)
	msg := pattern(5, 2*MaxFramePayload+5)
	written := writeAsync(c, msg)
	var got []byte
	for i, want := range []int{MaxFramePayload, MaxFramePayload, 5} {
		id, p, err := readRawFrame(raw)
		if err != nil || id != uint32(PluginServiceConn) || len(p) != want {
			t.Fatalf("frame %d: id %d, %d bytes, %v; want %d bytes", i, id, len(p), err, want)
		}
		got = append(got, p...)
	}
	if r := await(t, written, "Write"); r.err != nil || r.n != len(msg) {
		t.Fatalf("Write = %d, %v", r.n, r.err)
	}
	if !bytes.Equal(got, msg) {
		t.Fatal("payload differs")
	}
}

// TestWriteEmpty: an empty Write sends no frame.
func TestWriteEmpty(t *testing.T) {
	m, raw := rawPeer(t)
	c := mustOpen(t, m, PluginServiceConn)
	if n, err := c.Write(nil); n != 0 || err != nil {
		t.Fatalf("Write(nil) = %d, %v", n, err)
	}
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, p, err := readRawFrame(raw); err != nil || string(p) != "x" {
		t.Fatalf("first frame %q, %v; want the 1-byte write", p, err)
	}
}

// TestReadReferenceFrames feeds frames cut the way the reference Go writer
// cuts them: 4096 bytes, then everything else in one frame.
func TestReadReferenceFrames(t *testing.T) {
	for _, size := range messageSizes {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			m, raw := rawPeer(t)
			c := mustOpen(t, m, RuntimeServiceConn)
			msg := pattern(size, size)
			read := readFullAsync(c, size)
			first := min(size, MaxStartPayload)
			writeRaw(t, raw, rawFrame(2, msg[:first]))
			if first < size {
				writeRaw(t, raw, rawFrame(2, msg[first:]))
			}
			r := await(t, read, "ReadFull")
			if r.err != nil || !bytes.Equal(r.data, msg) {
				t.Fatalf("ReadFull: %d bytes, %v (equal %v)", len(r.data), r.err, bytes.Equal(r.data, msg))
			}
		})
	}
}

// TestLargestFrame checks the accepted limit exactly.
func TestLargestFrame(t *testing.T) {
	m, raw := rawPeer(t)
	c := mustOpen(t, m, 1)
	msg := pattern(7, MaxFramePayload)
	read := readFullAsync(c, len(msg))
	writeRaw(t, raw, rawFrame(1, msg))
	if r := await(t, read, "ReadFull"); r.err != nil || !bytes.Equal(r.data, msg) {
		t.Fatalf("ReadFull: %d bytes, %v", len(r.data), r.err)
	}
	if err := m.Err(); err != nil {
		t.Fatalf("Err = %v", err)
	}
}

// TestMuxEcho round-trips messages between two muxes, both directions.
func TestMuxEcho(t *testing.T) {
	a, b := muxPair(t)
	ca, cb := mustOpen(t, a, 1), mustOpen(t, b, 1)
	echoDone := goAsync(func() error {
		_, err := io.Copy(cb, cb) // echo until ca closes... or the test ends
		return err
	})
	for _, size := range messageSizes {
		msg := pattern(size+1, size)
		read := readFullAsync(ca, size)
		if _, err := ca.Write(msg); err != nil {
			t.Fatal(err)
		}
		if r := await(t, read, "echo"); r.err != nil || !bytes.Equal(r.data, msg) {
			t.Fatalf("size %d: %d bytes, %v", size, len(r.data), r.err)
		}
	}
	cb.Close()
	await(t, echoDone, "echo loop")
}

// TestSmallReads checks byte-stream semantics: a buffer smaller than a frame
// gets part of it and the rest comes on later Reads.
func TestSmallReads(t *testing.T) {
	m, raw := rawPeer(t)
	c := mustOpen(t, m, 1)
	msg := pattern(3, 10000)
	writeRaw(t, raw, rawFrame(1, msg[:9000]), rawFrame(1, msg[9000:]))
	var got []byte
	buf := make([]byte, 7)
	for len(got) < len(msg) {
		n, err := c.Read(buf)
		if err != nil || n == 0 {
			t.Fatalf("Read = %d, %v", n, err)
		}
		got = append(got, buf[:n]...)
	}
	if !bytes.Equal(got, msg) {
		t.Fatal("payload differs")
	}
}

// TestManyConns runs many logical connections at once, each with writers
// in both directions, and checks every stream arrives intact.
func TestManyConns(t *testing.T) {
	const conns, size = 16, 64 << 10
	a, b := muxPair(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4*conns)
	for id := ConnID(1); id <= conns; id++ {
		ca, cb := mustOpen(t, a, id), mustOpen(t, b, id)
		for dir, pair := range [][2]net.Conn{{ca, cb}, {cb, ca}} {
			want := pattern(int(id)*2+dir, size)
			wg.Add(2)
			go func() {
				defer wg.Done()
				errs <- writeInChunks(pair[0], want, int(id)*37)
			}()
			go func() {
				defer wg.Done()
				got := make([]byte, size)
				if _, err := io.ReadFull(pair[1], got); err != nil {
					errs <- fmt.Errorf("conn %d: %w", id, err)
				} else if !bytes.Equal(got, want) {
					errs <- fmt.Errorf("conn %d dir %d: data differs", id, dir)
				}
			}()
		}
	}
	await(t, goAsync(func() struct{} { wg.Wait(); return struct{}{} }), "all streams")
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// writeInChunks writes b in Writes of varying size up to max.
func writeInChunks(w io.Writer, b []byte, max int) error {
	for i := 1; len(b) > 0; i++ {
		n := min(len(b), 1+(i*7919)%max)
		if _, err := w.Write(b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// TestConcurrentWritesStayWhole checks that Writes from several goroutines
// on one connection are not interleaved, each larger than MaxStartPayload.
func TestConcurrentWritesStayWhole(t *testing.T) {
	const writers, records, recSize = 4, 20, 3*MaxStartPayload + 17
	a, b := muxPair(t)
	ca, cb := mustOpen(t, a, 1), mustOpen(t, b, 1)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range records {
				rec := bytes.Repeat([]byte{byte(w<<5 | r)}, recSize)
				if _, err := ca.Write(rec); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	next := make([]int, writers)
	rec := make([]byte, recSize)
	for range writers * records {
		if _, err := io.ReadFull(cb, rec); err != nil {
			t.Fatal(err)
		}
		tag := rec[0]
		if !bytes.Equal(rec, bytes.Repeat([]byte{tag}, recSize)) {
			t.Fatal("record interleaved with another")
		}
		w, r := int(tag>>5), int(tag&31)
		if r != next[w] {
			t.Fatalf("writer %d: record %d, want %d", w, r, next[w])
		}
		next[w]++
	}
	wg.Wait()
}
