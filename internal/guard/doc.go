// SPDX-License-Identifier: Apache-2.0

// Package guard stands between a mux connection and ttrpc and lets through
// only what nrikit speaks: unary calls. It parses the ttrpc message headers
// of the byte stream (10 bytes: length, stream ID, type, flags) and drops or
// refuses everything else before ttrpc sees it, so that no message a peer
// can send reaches one of ttrpc's code paths for streams. Some of those
// panic on unexpected input (ttrpc v1.2.10 still dereferences a nil stream
// handler when a data message names the stream of a unary call in flight).
//
// On the connection where nrikit serves (the Runtime service), requests pass
// and everything else is dropped; a request that would open a stream is
// rewritten into a call that ttrpc refuses with Unimplemented. On the
// connection where nrikit is the client (the Plugin service), only the first
// response to a request nrikit sent passes. Each dropped or refused message
// is reported once through Config.Report.
//
// The guard never allocates on behalf of a header's length before checking
// it: payloads pass through or are discarded in small pieces, and only
// requests within ttrpc's 4 MiB limit are read whole, to learn which method
// they call.
package guard
