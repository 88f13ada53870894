// SPDX-License-Identifier: Apache-2.0

// Package utf8check finds strings that are not valid UTF-8 in protobuf
// messages, and names the field that holds one.
//
// proto3 strings must be valid UTF-8: a peer's decoder refuses a message
// that breaks the rule, and then it cannot take any later request that
// carries the string. nrikit encodes its requests with the generated
// vtprotobuf encoder, which does not check, and in-process plugins hand
// their replies over as Go values, which nothing decodes; so nrikit checks
// what it takes from a plugin before merging it, and what the runtime hands
// it before calling any plugin.
//
// Encoded walks an encoding against its message's descriptor, through a
// table per message type built once. nrikit has an encoding of what it
// checks at hand, or gets one from the generated encoder: a walk over a Go
// message by protobuf reflection costs five times that encoding and
// allocates, the walk over the bytes one to two times and does not.
// protobuf's decoder checks strings too, but only says "string field
// contains invalid UTF-8"; Encoded names the field.
//
// It returns a path such as
//
//	adjust.annotations (a key)
//	update[1].linux.resources.unified["io.max"]
//	evict[0].reason
//
// in proto field names: list indices in brackets, and a map entry by its
// key (quoted) when the key is valid and the value is not.
package utf8check
