// SPDX-License-Identifier: Apache-2.0

package guard

import (
	"unicode/utf8"

	"github.com/containerd/ttrpc"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// callName reads the service (field 1) and method (field 2) of an encoded
// ttrpc.Request without copying its payload. ok is false when the request
// does not decode, which ttrpc answers with InvalidArgument.
func callName(b []byte) (service, method string, ok bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "", "", false
		}
		b = b[n:]
		if (num == 1 || num == 2) && typ == protowire.BytesType {
			v, n := protowire.ConsumeBytes(b)
			if n < 0 || !utf8.Valid(v) {
				return "", "", false
			}
			if num == 1 {
				service = string(v)
			} else {
				method = string(v)
			}
			b = b[n:]
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return "", "", false
		}
		b = b[n:]
	}
	return service, method, true
}

// refusedService names no service, so ttrpc answers a request for it with
// Unimplemented: "service nrikit: streams are not served".
const refusedService = "nrikit: streams are not served"

// refusal is a unary request on stream id that ttrpc refuses with
// Unimplemented, standing in for a request that would open a stream.
func refusal(id uint32) []byte {
	p, err := proto.Marshal(&ttrpc.Request{Service: refusedService})
	if err != nil { // two strings always encode
		p = nil
	}
	b := AppendHeader(make([]byte, 0, HeaderSize+len(p)), Header{Length: uint32(len(p)), StreamID: id, Type: TypeRequest})
	return append(b, p...)
}
