// SPDX-License-Identifier: Apache-2.0

// An event's request as each plugin gets it, encoded once for all where it can be.

package relay

import (
	"github.com/nrikit/nrikit/internal/nri"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// outgoing is an event's request as each plugin gets it. Most requests are
// the same for every plugin, so they are encoded once for all the plugins
// across a connection, instead of once per plugin: what the wire carries is
// the same bytes either way. In-process plugins get the request itself.
type outgoing[Req any] struct {
	req    Req
	stable bool // plugins do not change the request between calls
	tried  bool // encoding was attempted; ok says whether it worked
	ok     bool
	wire   Req
	// seeded: an evolving request was encoded by seed and has not changed
	// since, so wire is still its encoding.
	seeded bool
}

func newOutgoing[Req any](req Req, stable bool) *outgoing[Req] {
	return &outgoing[Req]{req: req, stable: stable}
}

// to returns the request to send p. A request that changes between plugins
// is encoded anew for each, still with the generated encoder rather than
// ttrpc's reflective one.
func (o *outgoing[Req]) to(p *plugin) Req {
	if p.kind == nri.Builtin {
		return o.req
	}
	if !o.stable && !o.seeded {
		if wire, ok := preEncoded(o.req); ok {
			return wire
		}
		return o.req
	}
	if !o.tried {
		o.wire, o.ok = preEncoded(o.req)
		o.tried = true
	}
	if !o.ok {
		return o.req
	}
	return o.wire
}

// seed encodes an evolving request as it is now and returns that encoding,
// which to hands out until changed is called. It returns nil if the request
// cannot be encoded.
func (o *outgoing[Req]) seed() []byte {
	o.wire, o.ok = preEncoded(o.req)
	o.tried = true
	if !o.ok {
		return nil
	}
	o.seeded = true
	return any(o.wire).(proto.Message).ProtoReflect().GetUnknown()
}

// encoding returns the request's encoding as the next plugin gets it, and
// its descriptor, encoding it now if it is not yet (to then reuses it). The
// descriptor is nil when the request does not encode.
func (o *outgoing[Req]) encoding() ([]byte, protoreflect.MessageDescriptor) {
	switch {
	case !o.stable && !o.seeded:
		o.seed()
	case !o.tried:
		o.wire, o.ok = preEncoded(o.req)
		o.tried = true
	}
	if !o.ok {
		return nil, nil
	}
	m := any(o.wire).(proto.Message).ProtoReflect()
	return m.GetUnknown(), m.Descriptor()
}

// changed tells that a plugin's reply has changed an evolving request: the
// next plugin gets it encoded anew.
func (o *outgoing[Req]) changed() { o.seeded = false }

// withEncoding returns a stable outgoing request whose encoding is b.
// Plugins that take messages in-process still get req.
func withEncoding[Req any](req Req, b []byte) *outgoing[Req] {
	return &outgoing[Req]{req: req, stable: true, tried: true, ok: true, wire: encodedAs(req, b)}
}

// preEncoded returns a message of req's type that marshals to exactly
// req's encoding without walking req's fields again: its content is that
// encoding, carried as unknown fields, which protobuf writes out verbatim.
func preEncoded[Req any](req Req) (Req, bool) {
	m, ok := any(req).(proto.Message)
	if !ok || m == nil || !m.ProtoReflect().IsValid() {
		return req, false
	}
	b, err := marshal(m)
	if err != nil {
		return req, false
	}
	return encodedAs(req, b), true
}

// encodedAs returns a message of req's type (a proto.Message) that encodes
// to exactly b, carried as unknown fields.
func encodedAs[Req any](req Req, b []byte) Req {
	raw := any(req).(proto.Message).ProtoReflect().New()
	raw.SetUnknown(b)
	return raw.Interface().(Req)
}
