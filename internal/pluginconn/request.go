// SPDX-License-Identifier: Apache-2.0

// Encoding a call's request as ttrpc's client encodes it, into a reused buffer.

package pluginconn

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/containerd/ttrpc"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/internal/guard"
	"github.com/nrikit/nrikit/internal/mux"
)

// The fields of ttrpc's Request message (its request.proto).
const (
	requestService  protowire.Number = 1
	requestMethod   protowire.Number = 2
	requestPayload  protowire.Number = 3
	requestTimeout  protowire.Number = 4
	requestMetadata protowire.Number = 5
)

// keptRequest is the largest request buffer a client keeps between calls.
// A larger one (a synchronization's, about 1 MB) goes back to bigRequests
// once written: the next message of the same synchronization takes it
// again, and it is freed soon after the last.
const keptRequest = 64 << 10

// bigRequests holds request buffers of more than keptRequest bytes.
var bigRequests sync.Pool

// encode encodes call id's request into the client's buffer, behind room
// for the mux frame header, exactly as ttrpc's client does: a message
// header (length, stream id, request type, no flags) and a ttrpc.Request
// with the service, the method, req's encoding (proto.Marshal's), the
// nanoseconds left until ctx's deadline, and ctx's ttrpc metadata. A request
// over ttrpc's 4 MiB limit is refused with ttrpc's error.
func (c *client) encode(ctx context.Context, id uint32, m *method, req proto.Message) ([]byte, error) {
	size := proto.Size(req)
	var timeout int64
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl).Nanoseconds()
	}
	md, err := metadataOf(ctx)
	if err != nil {
		return nil, err
	}
	n := m.envelope + fieldSize(requestPayload, size) + len(md)
	if timeout != 0 {
		n += protowire.SizeTag(requestTimeout) + protowire.SizeVarint(uint64(timeout))
	}
	if n > guard.MaxMessage {
		return nil, ttrpc.OversizedMessageError(n)
	}
	b := c.buffer(mux.FrameHeaderSize + guard.HeaderSize + n)[:mux.FrameHeaderSize]
	b = guard.AppendHeader(b, guard.Header{Length: uint32(n), StreamID: id, Type: guard.TypeRequest})
	b = append(b, m.names...)
	if size > 0 {
		b = protowire.AppendTag(b, requestPayload, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(size))
		if b, err = (proto.MarshalOptions{UseCachedSize: true}).MarshalAppend(b, req); err != nil {
			c.release(b)
			return nil, err
		}
	}
	if timeout != 0 {
		b = protowire.AppendTag(b, requestTimeout, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(timeout))
	}
	b = append(b, md...)
	if want := mux.FrameHeaderSize + guard.HeaderSize + n; len(b) != want {
		c.release(b)
		return nil, fmt.Errorf("nrikit: %s request changed while it was encoded (%d bytes, not %d)", m.name, len(b), want)
	}
	return b, nil
}

// fieldSize is the size of a bytes field of n bytes, 0 for none (proto3
// leaves an empty one out).
func fieldSize(num protowire.Number, n int) int {
	if n == 0 {
		return 0
	}
	return protowire.SizeTag(num) + protowire.SizeBytes(n)
}

// appendStringField appends a string field, unless it is empty.
func appendStringField(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// metadataOf is the encoding of ctx's ttrpc metadata as the Request's
// metadata fields, as ttrpc's client sends it; nil (no allocation) when ctx
// carries none. Each entry is encoded by protobuf, so that a key or value
// that is not valid UTF-8 fails the call as it does with ttrpc.
func metadataOf(ctx context.Context) ([]byte, error) {
	md, ok := ttrpc.GetMetadata(ctx)
	if !ok || len(md) == 0 {
		return nil, nil
	}
	var b []byte
	for k, values := range md {
		for _, v := range values {
			kv, err := proto.Marshal(&ttrpc.KeyValue{Key: k, Value: v})
			if err != nil {
				return nil, err
			}
			b = protowire.AppendTag(b, requestMetadata, protowire.BytesType)
			b = protowire.AppendBytes(b, kv)
		}
	}
	return b, nil
}

// buffer returns an empty buffer of at least n bytes' capacity for the next
// request: the client's own up to keptRequest, a pooled one beyond.
func (c *client) buffer(n int) []byte {
	if n <= keptRequest {
		if cap(c.buf) < n {
			c.buf = make([]byte, 0, max(n, mux.MaxStartPayload+mux.FrameHeaderSize))
		}
		return c.buf[:0]
	}
	if p, _ := bigRequests.Get().(*[]byte); p != nil {
		if cap(*p) >= n {
			return (*p)[:0]
		}
		bigRequests.Put(p)
	}
	return make([]byte, 0, n)
}

// release gives back a buffer from buffer once its request is written.
func (c *client) release(b []byte) {
	if cap(b) > keptRequest {
		pool(b[:0])
	}
}

// pool puts b into bigRequests; apart from release, so that the slice that
// escapes is b only when it goes there.
func pool(b []byte) { bigRequests.Put(&b) }
