// SPDX-License-Identifier: Apache-2.0

// Refusing strings that are not valid UTF-8 in requests and replies (ErrInvalidUTF8), naming the
// field.

package adaptation

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/containerd/ttrpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/utf8check"
)

// ErrInvalidUTF8 is wrapped by the error of an event whose request, or a
// plugin's reply to it, holds a string that is not valid UTF-8. protobuf
// forbids such strings: a plugin's decoder refuses the message, so nrikit
// neither sends one nor merges one, where a later plugin would get it. The
// error names the field.
var ErrInvalidUTF8 = errors.New("nrikit: string is not valid UTF-8")

// invalidUTF8 is the error for the string at path in what ("reply",
// "request").
func invalidUTF8(what, path string) error {
	return fmt.Errorf("%w: %s field %s", ErrInvalidUTF8, what, path)
}

// checkEncoding finds a string that is not valid UTF-8 in b, an encoding
// of a message described by md.
func checkEncoding(what string, b []byte, md protoreflect.MessageDescriptor) error {
	if path, bad := utf8check.Encoded(b, md); bad {
		return invalidUTF8(what, path)
	}
	return nil
}

// checkRequestEncoding refuses an event's request that holds an invalid
// string before any plugin gets it: every plugin's decoder would refuse it,
// each blamed in turn. The encoding is the one plugins are then sent.
func checkRequestEncoding[Req any](ev api.Event, out *outgoing[Req]) error {
	b, md := out.encoding()
	if md == nil {
		return nil
	}
	if err := checkEncoding("request", b, md); err != nil {
		return fmt.Errorf("nrikit: %s refused before any plugin got it: %w", ev.Name(), err)
	}
	return nil
}

// undeliverable is the outcome of an event whose request no plugin can
// decode: a setup or validation event fails; teardown and notification
// never do, so they go on without plugins, with a warning.
func (a *Adaptation) undeliverable(pol eventPolicy, ev api.Event, err error) error {
	if pol.class.canFail() {
		return err
	}
	a.log.WithField("event", ev.Name()).WithError(err).Warn("nrikit: event relayed to no plugin")
	return nil
}

// checkReplyStrings is the client interceptor of every plugin connection:
// it refuses a reply that holds an invalid string, naming the field, before
// ttrpc decodes it (protobuf's decoder would refuse it without saying
// where). A reply that carries nothing costs nothing.
func checkReplyStrings(ctx context.Context, req *ttrpc.Request, rsp *ttrpc.Response, info *ttrpc.UnaryClientInfo, invoke ttrpc.Invoker) error {
	if err := invoke(ctx, req, rsp); err != nil || len(rsp.Payload) == 0 {
		return err
	}
	if md := replyDescriptor(info.FullMethod); md != nil {
		return checkEncoding("reply", rsp.Payload, md)
	}
	return nil
}

// replyDescriptors caches, by ttrpc method path, the descriptor of the
// Plugin service's reply ("<Method>Response"; nil for Empty).
var replyDescriptors sync.Map

func replyDescriptor(fullMethod string) protoreflect.MessageDescriptor {
	if md, ok := replyDescriptors.Load(fullMethod); ok {
		return md.(protoreflect.MessageDescriptor)
	}
	var md protoreflect.MessageDescriptor
	method := fullMethod[strings.LastIndexByte(fullMethod, '/')+1:]
	name := (&api.Empty{}).ProtoReflect().Descriptor().ParentFile().Package().Append(protoreflect.Name(method + "Response"))
	if mt, err := protoregistry.GlobalTypes.FindMessageByName(name); err == nil {
		md = mt.Descriptor()
	}
	replyDescriptors.Store(fullMethod, md)
	return md
}

// checkCallStrings is the server interceptor of every plugin connection: a
// call of the plugin (unsolicited updates) whose request holds an invalid
// string is refused with the field named, not only with protobuf's "string
// field contains invalid UTF-8". A request that decodes is decoded once.
func checkCallStrings(ctx context.Context, unmarshal ttrpc.Unmarshaler, _ *ttrpc.UnaryServerInfo, method ttrpc.Method) (any, error) {
	return method(ctx, func(v any) error {
		err := unmarshal(v)
		m, ok := v.(proto.Message)
		if err == nil || !ok {
			return err
		}
		// ttrpc's error keeps only protobuf's text: look for the string.
		var raw api.Empty // keeps every field as unknown bytes, unchecked
		if unmarshal(&raw) != nil {
			return err
		}
		if named := checkEncoding("request", raw.ProtoReflect().GetUnknown(), m.ProtoReflect().Descriptor()); named != nil {
			return named
		}
		return err
	})
}

// isInvalidUTF8 reports whether err is protobuf's decoding error for an
// invalid string.
func isInvalidUTF8(err error) bool {
	var u interface{ InvalidUTF8() bool }
	return errors.As(err, &u) && u.InvalidUTF8()
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
	return checkEncoding("reply", b, m.ProtoReflect().Descriptor())
}
