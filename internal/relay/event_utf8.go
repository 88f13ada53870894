// SPDX-License-Identifier: Apache-2.0

// Refusing strings that are not valid UTF-8 in requests and in-process replies (utf8check.ErrInvalidUTF8),
// naming the field; a socket plugin's replies are checked by its connection (internal/pluginconn).

package relay

import (
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/utf8check"
)

// checkRequestEncoding refuses an event's request that holds an invalid
// string before any plugin gets it: every plugin's decoder would refuse it,
// each blamed in turn. The encoding is the one plugins are then sent.
func checkRequestEncoding[Req any](ev api.Event, out *outgoing[Req]) error {
	b, md := out.encoding()
	if md == nil {
		return nil
	}
	if err := utf8check.Check("request", b, md); err != nil {
		return fmt.Errorf("nrikit: %s refused before any plugin got it: %w", ev.Name(), err)
	}
	return nil
}

// undeliverable is the outcome of an event whose request no plugin can
// decode: a setup or validation event fails; teardown and notification
// never do, so they go on without plugins, with a warning.
func (r *Relay) undeliverable(pol eventPolicy, ev api.Event, err error) error {
	if pol.class.canFail() {
		return nri.WithCode(err, codes.InvalidArgument) // the runtime's own request
	}
	r.log.WithField("event", ev.Name()).WithError(err).Warn("nrikit: event relayed to no plugin")
	return nil
}

// checkInProcessReply refuses an in-process plugin's reply that holds an
// invalid string: nothing decodes it, so nothing else would. A reply with
// nothing set is not encoded.
func checkInProcessReply(rsp any) error {
	m, ok := rsp.(interface {
		proto.Message
		vtSizedMarshaler
	})
	if !ok {
		return nil
	}
	n := m.SizeVT()
	if n == 0 {
		return nil
	}
	b := make([]byte, n)
	if _, err := m.MarshalToSizedBufferVT(b); err != nil {
		return nil
	}
	return utf8check.Check("reply", b, m.ProtoReflect().Descriptor())
}
