// SPDX-License-Identifier: Apache-2.0

// Reading replies as the mux's trunk reader hands their bytes over, and decoding each into its caller.

package pluginconn

import (
	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/containerd/ttrpc"

	"github.com/nrikit/nrikit/internal/guard"
	"github.com/nrikit/nrikit/internal/panics"
	"github.com/nrikit/nrikit/internal/utf8check"
)

// keptReply is the largest buffer the reader keeps for a reply that spans
// several of the trunk reader's reads.
const keptReply = 64 << 10

// replyReader follows the message boundaries of connection 1's stream. It
// is the trunk reader's alone.
type replyReader struct {
	hdr  [guard.HeaderSize]byte
	got  int          // header bytes read of the current message
	cur  guard.Header // the current message's, once its header is whole
	left uint32       // payload bytes still to come of it
	keep bool         // its payload is collected: an answer to a call
	over bool         // an answer over ttrpc's limit, discarded as it comes
	body []byte       // its payload so far, when it spans reads
}

// Receive takes the next bytes of connection 1 from the trunk reader
// (mux.Receiver). A reply that arrives whole in p is decoded from p itself.
// A panic here, in code the plugin's bytes steer, ends the trunk (the mux
// recovers it), and with it the connection.
func (c *client) Receive(p []byte) {
	panics.Inject("replies.read", "")
	r := &c.in
	for len(p) > 0 {
		if r.got < guard.HeaderSize {
			k := copy(r.hdr[r.got:], p)
			r.got += k
			p = p[k:]
			if r.got < guard.HeaderSize {
				return
			}
			c.begin(guard.ParseHeader(r.hdr[:]))
			if r.left == 0 {
				c.finish(nil)
				continue
			}
			if r.keep && uint32(len(p)) >= r.left {
				whole := p[:r.left] // the common case: decoded where it lies
				p = p[r.left:]
				r.left = 0
				c.finish(whole)
				continue
			}
		}
		k := uint32(min(uint64(len(p)), uint64(r.left)))
		if r.keep {
			r.body = append(r.body, p[:k]...)
		}
		r.left -= k
		p = p[k:]
		if r.left == 0 {
			c.finish(r.body)
		}
	}
}

// begin decides what becomes of the message with header h: the guard's
// rules for a client (guard.Replies).
func (c *client) begin(h guard.Header) {
	r := &c.in
	r.cur, r.left, r.keep, r.over = h, h.Length, false, false
	switch v, reason := c.replies.Admit(h); v {
	case guard.Pass:
		// ttrpc discards a message over its limit without reading it into
		// memory, and fails the call it answers.
		r.over = h.Length > guard.MaxMessage
		r.keep = !r.over
	case guard.Refuse:
		if c.report != nil {
			c.report(guard.Violation{Role: guard.Client, Header: h, Reason: reason})
		}
	}
}

// finish ends the current message, with msg its payload if it was kept.
func (c *client) finish(msg []byte) {
	r := &c.in
	r.got = 0
	switch {
	case r.keep:
		if k := c.take(r.cur.StreamID); k != nil {
			answer(k, decodeReply(msg, k.m, k.rsp))
		}
	case r.over:
		if k := c.take(r.cur.StreamID); k != nil {
			answer(k, grpcstatus.Errorf(codes.ResourceExhausted, "message length %v exceed maximum message size of %v",
				r.cur.Length, guard.MaxMessage))
		}
	}
	r.keep, r.over = false, false
	if cap(r.body) > keptReply {
		r.body = nil
	}
	r.body = r.body[:0]
}

// decodeReply decodes a ttrpc.Response into rsp as ttrpc's client and the
// connection's string check do, in their order: the Response itself, the
// reply's strings (naming a field that is not valid UTF-8), the reply, and
// last the status the plugin answered with.
func decodeReply(msg []byte, m *method, rsp proto.Message) error {
	payload, failed, err := parseResponse(msg)
	if err != nil {
		return err
	}
	if len(payload) > 0 && m.reply != nil {
		if err := utf8check.Check("reply", payload, m.reply); err != nil {
			return err
		}
	}
	if err := unmarshal(payload, rsp); err != nil {
		return err
	}
	return failed
}

// vtUnmarshaler is the reflection-free decoding vtprotobuf generates for
// nrikit's messages (api/nrikit_vtproto.pb.go).
type vtUnmarshaler interface{ UnmarshalVT([]byte) error }

// unmarshal decodes a reply into a fresh rsp with the generated decoding,
// which allocates only what the reply holds, where rsp has it. An encoding
// that decoding refuses is decoded again by protobuf's own, so that what
// protobuf accepts (a known field of another wire type, kept as unknown)
// is accepted and what it refuses fails with its error, as ttrpc's client
// would.
func unmarshal(b []byte, rsp proto.Message) error {
	if vt, ok := rsp.(vtUnmarshaler); ok {
		if vt.UnmarshalVT(b) == nil {
			return nil
		}
		proto.Reset(rsp)
	}
	return proto.Unmarshal(b, rsp)
}

// The payload field of ttrpc's Response message.
const responsePayload protowire.Number = 2

// parseResponse takes a ttrpc.Response apart without copying its payload:
// the reply's encoding, and the error the plugin answered with (its status,
// unless OK). Anything
// but a lone payload field (a status, an odd or broken encoding) is decoded
// by protobuf into a ttrpc.Response, so that every error and every odd
// encoding comes out as ttrpc's own decoding makes it.
func parseResponse(msg []byte) (payload []byte, failed, err error) {
	if len(msg) == 0 {
		return nil, nil, nil
	}
	num, typ, n := protowire.ConsumeTag(msg)
	if n > 0 && num == responsePayload && typ == protowire.BytesType {
		if v, k := protowire.ConsumeBytes(msg[n:]); k == len(msg)-n {
			return v, nil, nil
		}
	}
	var rsp ttrpc.Response
	if err := proto.Unmarshal(msg, &rsp); err != nil {
		return nil, nil, err
	}
	if st := rsp.GetStatus(); st != nil && st.GetCode() != int32(codes.OK) {
		failed = grpcstatus.ErrorProto(st)
	}
	return rsp.GetPayload(), failed, nil
}
