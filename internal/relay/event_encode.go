// SPDX-License-Identifier: Apache-2.0

// Reflection-free encoding of requests with the generated vtproto code.

package relay

import (
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
)

// vtMarshaler is the reflection-free encoding protoc-gen-go-vtproto
// generates for api's messages (api/nrikit_vtproto.pb.go). protobuf's own
// encoding walks maps (labels, annotations) by reflection: about 90
// allocations for a realistic CreateContainerRequest, against one.
type vtMarshaler interface{ MarshalVT() ([]byte, error) }

// vtSizer is the generated size computation, without allocations.
type vtSizer interface{ SizeVT() int }

// vtSizedMarshaler encodes into a buffer of exactly SizeVT bytes.
type vtSizedMarshaler interface {
	vtSizer
	MarshalToSizedBufferVT([]byte) (int, error)
}

// marshal encodes m as proto.Marshal does, with the generated encoder when
// m's type has one. Unlike proto.Marshal, it does not check that strings
// are valid UTF-8: the peer's decoder does.
func marshal(m proto.Message) ([]byte, error) {
	if vt, ok := m.(vtMarshaler); ok {
		return vt.MarshalVT()
	}
	return proto.Marshal(m)
}

// encodedSize is proto.Size, with the generated computation when m's type
// has one.
func encodedSize(m proto.Message) int {
	if vt, ok := m.(vtSizer); ok {
		return vt.SizeVT()
	}
	return proto.Size(m)
}

// syncEncoder pre-encodes, as preEncoded does, the Synchronize messages
// that go to one plugin one call after the other, into one reused buffer,
// made once at the size of a whole message (maxSyncMessage) when one is
// that large. Reuse is safe because the connection's client copies a
// request's encoding before its call returns, and a call returns before the
// next starts; the client writes it from a buffer it releases once written
// (internal/pluginconn). A big node's synchronization thus allocates about
// two messages' worth, not its whole encoded size (about 120 MB for 50,000
// containers), and holds nothing of what it has sent.
type syncEncoder struct{ buf []byte }

// to returns req as p gets it. What the previous call returned is then no
// longer valid.
func (e *syncEncoder) to(p *plugin, req *api.SynchronizeRequest) *api.SynchronizeRequest {
	if p.kind == nri.Builtin {
		return req
	}
	n := req.SizeVT()
	if cap(e.buf) < n {
		e.buf = make([]byte, n, max(n, min(maxSyncMessage, 2*n)))
	}
	b := e.buf[:n]
	if _, err := req.MarshalToSizedBufferVT(b); err != nil {
		return req
	}
	raw := &api.SynchronizeRequest{}
	raw.ProtoReflect().SetUnknown(b)
	return raw
}

// appendEncoding returns prefix followed by m's encoding, in one new
// buffer. Protobuf decodes a concatenation of encodings as the message with
// the fields of both, so prefix can hold fields that m leaves unset.
func appendEncoding(prefix []byte, m proto.Message) ([]byte, error) {
	if vt, ok := m.(vtSizedMarshaler); ok {
		b := make([]byte, len(prefix)+vt.SizeVT())
		copy(b, prefix)
		_, err := vt.MarshalToSizedBufferVT(b[len(prefix):])
		return b, err
	}
	return proto.MarshalOptions{}.MarshalAppend(slices.Clip(prefix), m)
}
