// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/wrapperspb"
)

// ttrpcSend writes one ttrpc message (10-byte header, then payload) the way
// ttrpc's channel.send does: header and payload into a 4096-byte
// bufio.Writer, then Flush.
func ttrpcSend(w *bufio.Writer, msg []byte) error {
	if _, err := w.Write(msg[:10]); err != nil {
		return err
	}
	if _, err := w.Write(msg[10:]); err != nil {
		return err
	}
	return w.Flush()
}

// ttrpcMessage returns a ttrpc message of size bytes in all, header
// included, with a patterned payload.
func ttrpcMessage(seed, size int) []byte {
	msg := binary.BigEndian.AppendUint32(nil, uint32(size-10))
	msg = binary.BigEndian.AppendUint32(msg, uint32(2*seed+1)) // stream id
	msg = append(msg, 1, 0)                                    // request, no flags
	return append(msg, pattern(seed, size-10)...)
}

// errFrameTooBig is what refConn reports where the reference reader fails:
// its Read gets a buffer smaller than the next frame (ENOMEM there, or a
// short copy that loses data).
var errFrameTooBig = errors.New("frame larger than the read buffer")

// refConn reads frames off a raw trunk the way the reference Go mux hands
// them to its ttrpc: each Read returns one whole frame of connection id and
// fails if the buffer is smaller. It records the frame sizes it sees.
type refConn struct {
	raw    io.Reader
	id     ConnID
	frames []int
}

func (r *refConn) Read(b []byte) (int, error) {
	id, p, err := readRawFrame(r.raw)
	if err != nil {
		return 0, err
	}
	if id != uint32(r.id) {
		return 0, fmt.Errorf("frame for connection %d, want %d", id, r.id)
	}
	r.frames = append(r.frames, len(p))
	if len(b) < len(p) {
		return 0, fmt.Errorf("%w: %d-byte frame, %d-byte buffer", errFrameTooBig, len(p), len(b))
	}
	return copy(b, p), nil
}

// ttrpcRecv reads one message the way ttrpc's channel.recv does, from a
// 4096-byte bufio.Reader: the 10-byte header, then the payload into a
// buffer of exactly its length. It returns the whole message.
func ttrpcRecv(br *bufio.Reader) ([]byte, error) {
	hdr := make([]byte, 10)
	if _, err := io.ReadFull(br, hdr); err != nil {
		return nil, err
	}
	p := make([]byte, binary.BigEndian.Uint32(hdr))
	if _, err := io.ReadFull(br, p); err != nil {
		return nil, err
	}
	return append(hdr, p...), nil
}

// TestTTRPCWritesReachReference writes ttrpc messages of 10, 4096, 4097,
// 9061 and 2 MiB bytes through a 4096-byte bufio.Writer, as ttrpc does, one
// after the other on one connection. Each must reach the trunk as the
// reference writer sends it (at most 4096 bytes, or 4096 bytes and then the
// rest in one frame) and be read whole by a model of the reference reader:
// ttrpc's 4096-byte bufio.Reader over a mux that hands one frame per Read.
func TestTTRPCWritesReachReference(t *testing.T) {
	cases := []struct {
		size   int
		frames []int
	}{
		{10, []int{10}},
		{4096, []int{4096}},
		{4097, []int{4096, 1}},
		{9061, []int{4096, 4965}}, // measured from the reference writer
		{2 << 20, []int{4096, 2<<20 - 4096}},
		{10, []int{10}}, // after a large message, the reader's buffer is empty again
	}
	m, raw := rawPeer(t)
	c := mustOpen(t, m, PluginServiceConn)
	msgs := make([][]byte, len(cases))
	for i, tc := range cases {
		msgs[i] = ttrpcMessage(i, tc.size)
	}
	written := goAsync(func() error {
		w := bufio.NewWriterSize(c, 4096)
		for _, msg := range msgs {
			if err := ttrpcSend(w, msg); err != nil {
				return err
			}
		}
		return nil
	})

	ref := &refConn{raw: raw, id: PluginServiceConn}
	br := bufio.NewReaderSize(ref, 4096)
	for i, tc := range cases {
		ref.frames = ref.frames[:0]
		got, err := ttrpcRecv(br)
		if err != nil {
			t.Fatalf("message %d (%d bytes): %v (%s)", i, tc.size, err, describeFrames(ref.frames))
		}
		if !bytes.Equal(got, msgs[i]) {
			t.Fatalf("message %d (%d bytes) differs", i, tc.size)
		}
		if fmt.Sprint(ref.frames) != fmt.Sprint(tc.frames) {
			t.Errorf("message %d (%d bytes): %s, want %v", i, tc.size, describeFrames(ref.frames), tc.frames)
		}
	}
	if err := await(t, written, "writes"); err != nil {
		t.Fatal(err)
	}
}

// describeFrames lists frame sizes, only the first few of many.
func describeFrames(sizes []int) string {
	if len(sizes) <= 4 {
		return fmt.Sprintf("frames %v", sizes)
	}
	return fmt.Sprintf("%d frames %v...", len(sizes), sizes[:4])
}

// TestRefConnRejectsLargeStart checks the model: a frame of more than 4096
// bytes at the start of a message fails, as it does in the reference.
func TestRefConnRejectsLargeStart(t *testing.T) {
	m, raw := rawPeer(t)
	c := mustOpen(t, m, PluginServiceConn)
	msg := ttrpcMessage(1, 4097)
	written := writeAsync(c, msg) // one Write: one frame of 4097 bytes
	br := bufio.NewReaderSize(&refConn{raw: raw, id: PluginServiceConn}, 4096)
	if _, err := ttrpcRecv(br); !errors.Is(err, errFrameTooBig) {
		t.Fatalf("ttrpcRecv = %v, want %v", err, errFrameTooBig)
	}
	if r := await(t, written, "Write"); r.err != nil {
		t.Fatal(r.err)
	}
}

// TestTTRPCClientLargeRequestFrames makes a real ttrpc client call with a
// 2 MiB argument and checks the frames on the trunk: 4096 bytes, then the
// rest of the message in one frame.
func TestTTRPCClientLargeRequestFrames(t *testing.T) {
	m, raw := rawPeer(t)
	client := dial(t, m, PluginServiceConn)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	arg := strings.Repeat("y", 2<<20)
	called := goAsync(func() error {
		var resp wrapperspb.StringValue
		return client.Call(ctx, echoService, "Echo", wrapperspb.String(arg), &resp)
	})

	id, first, err := readRawFrame(raw)
	if err != nil || id != uint32(PluginServiceConn) || len(first) != MaxStartPayload {
		t.Fatalf("first frame: id %d, %d bytes, %v; want %d bytes", id, len(first), err, MaxStartPayload)
	}
	size := 10 + int(binary.BigEndian.Uint32(first))
	if size < len(arg) {
		t.Fatalf("message of %d bytes for a %d-byte argument", size, len(arg))
	}
	id, rest, err := readRawFrame(raw)
	if err != nil || id != uint32(PluginServiceConn) || len(rest) != size-MaxStartPayload {
		t.Fatalf("second frame: id %d, %d bytes, %v; want the other %d bytes", id, len(rest), err, size-MaxStartPayload)
	}
	cancel() // the peer never answers
	if err := await(t, called, "Call to give up"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Call = %v", err)
	}
}

// TestWriteAllocs: writing a frame allocates nothing, small (copied behind
// the header) or large (header and payload handed to the trunk together).
func TestWriteAllocs(t *testing.T) {
	m := New(&bytesTrunk{r: bytes.NewReader(nil)}, WithReaderBlocked())
	defer m.Close()
	c := mustOpen(t, m, PluginServiceConn)
	for _, size := range []int{100, MaxStartPayload, 64 << 10} {
		b := pattern(size, size)
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := c.Write(b); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("Write of %d bytes: %v allocations, want 0", size, allocs)
		}
	}
}
