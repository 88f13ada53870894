// SPDX-License-Identifier: Apache-2.0

// Refusing strings that are not valid UTF-8 in a plugin's replies and calls, naming the field.

package pluginconn

import (
	"context"
	"strings"
	"sync"

	"github.com/containerd/ttrpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/utf8check"
)

// checkReplyStrings is the client interceptor of every plugin connection:
// it refuses a reply that holds an invalid string, naming the field, before
// ttrpc decodes it (protobuf's decoder would refuse it without saying
// where). A reply that carries nothing costs nothing.
func checkReplyStrings(ctx context.Context, req *ttrpc.Request, rsp *ttrpc.Response, info *ttrpc.UnaryClientInfo, invoke ttrpc.Invoker) error {
	if err := invoke(ctx, req, rsp); err != nil || len(rsp.Payload) == 0 {
		return err
	}
	if md := replyDescriptor(info.FullMethod); md != nil {
		return utf8check.Check("reply", rsp.Payload, md)
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
		if named := utf8check.Check("request", raw.ProtoReflect().GetUnknown(), m.ProtoReflect().Descriptor()); named != nil {
			return named
		}
		return err
	})
}
