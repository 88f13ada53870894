// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestOversizedFrame declares a 2 GiB frame: the trunk must end with an error
// naming the size, without allocating it.
func TestOversizedFrame(t *testing.T) {
	for _, size := range []uint32{MaxFramePayload + 1, 1 << 31, 1<<32 - 1} {
		m, raw := rawPeer(t)
		c := mustOpen(t, m, 1)
		var hdr [8]byte
		binary.BigEndian.PutUint32(hdr[0:4], 1)
		binary.BigEndian.PutUint32(hdr[4:8], size)

		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		writeRaw(t, raw, hdr[:])
		await(t, m.Done(), "trunk teardown")
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("size %d: allocated %d bytes", size, grew)
		}

		err := m.Err()
		var fse *FrameSizeError
		if !errors.Is(err, ErrFrameTooLarge) || !errors.As(err, &fse) || fse.Size != size {
			t.Fatalf("Err = %v", err)
		}
		for _, want := range []string{"frame of " + strconv.FormatUint(uint64(size), 10) + " bytes", "limit 4194314"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q does not say %q", err, want)
			}
		}
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, ErrFrameTooLarge) {
			t.Errorf("Read after teardown = %v", err)
		}
		// The trunk is closed: the peer sees EOF.
		if _, err := raw.Read(make([]byte, 1)); err != io.EOF {
			t.Errorf("peer read = %v, want EOF", err)
		}
	}
}

// TestTruncatedFrame ends the trunk inside a frame: the incomplete frame is
// not delivered and Reads report io.ErrUnexpectedEOF after the complete data.
func TestTruncatedFrame(t *testing.T) {
	cases := map[string][]byte{
		"in header":  rawFrame(1, []byte("abc"))[:5],
		"in payload": rawFrame(1, pattern(1, 100))[:58],
		"unknown id": rawFrame(9, pattern(1, 100))[:58],
	}
	for name, tail := range cases {
		t.Run(name, func(t *testing.T) {
			m, raw := rawPeer(t)
			c := mustOpen(t, m, 1)
			writeRaw(t, raw, rawFrame(1, []byte("whole")), tail)
			raw.Close()
			await(t, m.Done(), "trunk teardown")
			if err := m.Err(); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("Err = %v", err)
			}
			got, err := io.ReadAll(c)
			if string(got) != "whole" || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("ReadAll = %q, %v", got, err)
			}
		})
	}
}

// TestTrunkEOF closes the trunk cleanly between frames: queued data is still
// read, then io.EOF itself; writes fail with ErrClosed.
func TestTrunkEOF(t *testing.T) {
	m, raw := rawPeer(t)
	c1, c2 := mustOpen(t, m, 1), mustOpen(t, m, 2)
	writeRaw(t, raw, rawFrame(1, []byte("one")), rawFrame(2, []byte("two")))
	raw.Close()
	await(t, m.Done(), "trunk teardown")
	if err := m.Err(); err != io.EOF {
		t.Fatalf("Err = %v, want io.EOF", err)
	}
	for c, want := range map[net.Conn]string{c1: "one", c2: "two"} {
		buf := make([]byte, 10)
		n, err := c.Read(buf)
		if err != nil || string(buf[:n]) != want {
			t.Errorf("Read = %q, %v", buf[:n], err)
		}
		if n, err := c.Read(buf); n != 0 || err != io.EOF {
			t.Errorf("Read at end = %d, %v; want exactly io.EOF", n, err)
		}
		if _, err := c.Write([]byte("x")); !errors.Is(err, ErrClosed) || !errors.Is(err, net.ErrClosed) {
			t.Errorf("Write after EOF = %v", err)
		}
	}
	if _, err := m.Open(3); !errors.Is(err, ErrClosed) {
		t.Errorf("Open after EOF = %v", err)
	}
}

// TestZeroLengthFrames checks empty frames deliver nothing, in particular no
// 0-byte Read that would look like EOF, and that an empty Write sends none.
func TestZeroLengthFrames(t *testing.T) {
	m, raw := rawPeer(t)
	c := mustOpen(t, m, 1)
	writeRaw(t, raw, rawFrame(1, nil), rawFrame(1, []byte("ab")), rawFrame(1, nil),
		rawFrame(1, nil), rawFrame(1, []byte("cd")), rawFrame(1, nil))
	r := await(t, readFullAsync(c, 4), "data")
	if r.err != nil || string(r.data) != "abcd" {
		t.Fatalf("ReadFull = %q, %v", r.data, r.err)
	}
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, err := c.Read(make([]byte, 8)); n != 0 || !isTimeout(err) {
		t.Fatalf("Read after empty frames = %d, %v; want a timeout", n, err)
	}

	if n, err := c.Write(nil); n != 0 || err != nil {
		t.Fatalf("Write(nil) = %d, %v", n, err)
	}
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if id, p, err := readRawFrame(raw); err != nil || id != 1 || string(p) != "x" {
		t.Fatalf("first frame: %d %q %v; an empty Write must send nothing", id, p, err)
	}
}

// TestUnknownIDsDropped sends frames for IDs that are not open, including the
// reserved 0 and a large one; later frames for an open ID still arrive.
func TestUnknownIDsDropped(t *testing.T) {
	m, raw := rawPeer(t)
	c := mustOpen(t, m, 1)
	writeRaw(t, raw,
		rawFrame(0, []byte("reserved")),
		rawFrame(1, []byte("a")),
		rawFrame(2, []byte("not opened")),
		rawFrame(9, pattern(9, 1<<20)),
		rawFrame(1<<32-1, []byte("max id")),
		rawFrame(1, []byte("b")))
	r := await(t, readFullAsync(c, 2), "data")
	if r.err != nil || string(r.data) != "ab" {
		t.Fatalf("ReadFull = %q, %v", r.data, r.err)
	}
	if err := m.Err(); err != nil {
		t.Fatalf("Err = %v", err)
	}
}

// TestFramesBeforeOpenDropped shows the rule WithReaderBlocked exists for:
// a frame read before its ID is opened is gone.
func TestFramesBeforeOpenDropped(t *testing.T) {
	m, raw := rawPeer(t)
	c2 := mustOpen(t, m, 2)
	writeRaw(t, raw, rawFrame(1, []byte("early")), rawFrame(2, []byte("sync")))
	// Conn 2's frame came after conn 1's, so conn 1's has been dropped.
	await(t, readFullAsync(c2, 4), "sync frame")
	c1 := mustOpen(t, m, 1)
	writeRaw(t, raw, rawFrame(1, []byte("late")))
	if r := await(t, readFullAsync(c1, 4), "late frame"); string(r.data) != "late" {
		t.Fatalf("got %q, %v", r.data, r.err)
	}
}

// TestReaderBlocked checks that nothing is read, and so nothing dropped,
// before Unblock.
func TestReaderBlocked(t *testing.T) {
	m, raw := rawPeer(t, WithReaderBlocked())
	writeRaw(t, raw, rawFrame(1, []byte("early")))
	c := mustOpen(t, m, 1)
	read := readFullAsync(c, 5)
	stillBlocked(t, read, 50*time.Millisecond, "Read before Unblock")
	m.Unblock()
	m.Unblock()
	if r := await(t, read, "Read"); string(r.data) != "early" {
		t.Fatalf("got %q, %v", r.data, r.err)
	}
}

// TestFineFrames splits one stream across frames of 1 to 100 bytes.
func TestFineFrames(t *testing.T) {
	m, raw := rawPeer(t)
	c := mustOpen(t, m, 1)
	msg := pattern(5, 200_000)
	read := readFullAsync(c, len(msg))
	var stream bytes.Buffer
	for i, rest := 0, msg; len(rest) > 0; i++ {
		n := min(len(rest), 1+(i*31)%100)
		stream.Write(rawFrame(1, rest[:n]))
		rest = rest[n:]
	}
	writeRaw(t, raw, stream.Bytes())
	if r := await(t, read, "ReadFull"); r.err != nil || !bytes.Equal(r.data, msg) {
		t.Fatalf("ReadFull: %d bytes, %v", len(r.data), r.err)
	}
}
