// SPDX-License-Identifier: Apache-2.0

// Package mux multiplexes logical connections over one trunk connection,
// wire-compatible with the NRI reference implementation.
//
// # Protocol
//
// The trunk carries a sequence of frames. Each frame is an 8-byte header,
// a big-endian uint32 connection ID followed by a big-endian uint32 payload
// length N, and then N payload bytes. The payload is a chunk of that logical
// connection's byte stream: frame boundaries carry no meaning, and a ttrpc
// message may span many frames or share one with another message.
//
// There are no control frames. Each side opens and closes logical connections
// locally and assumes the peer uses the same IDs: [PluginServiceConn] (1), on
// which the runtime is the ttrpc client, and [RuntimeServiceConn] (2), on which
// the runtime is the ttrpc server. ID 0 is reserved. Frames for an ID that is
// not open here, including ID 0 and IDs not opened yet, are read in full and
// dropped silently. That is why a runtime creates its Mux with
// [WithReaderBlocked], opens its connections and starts its ttrpc server, and
// only then calls [Mux.Unblock]: nothing the plugin sends early is lost.
//
// # Frame sizes
//
// Each Write goes out as one frame, the way the reference Go writer frames
// it; only a Write of more than [MaxFramePayload] bytes, which ttrpc never
// makes, is cut into frames of that size. Frame sizes matter to a reference
// Go peer in two ways. Its reader hands one whole frame to each Read and
// fails when the caller's buffer is smaller; its ttrpc sits on a 4096-byte
// bufio.Reader, so a frame that starts a ttrpc message must be at most
// [MaxStartPayload] (4096) bytes, or it drops the connection. And it fails
// the whole trunk, every logical connection with it, once more than 256
// frames of one logical connection wait unread, so a message must not be
// cut into many frames: 256 frames of 4096 bytes are only 1 MiB, and a
// plugin that lags behind a larger message sent that way is lost.
//
// What ttrpc writes meets both, because it writes each message through a
// 4096-byte bufio.Writer and flushes after it: a message of up to 4096 bytes
// arrives as one Write, a larger one as a Write of exactly 4096 bytes (the
// 10-byte ttrpc header and the start of the payload) followed by one Write
// of all the rest. The reference reader takes the first frame into its
// bufio.Reader and reads the rest straight into the message buffer, which
// is just as large. Every message is thus at most two frames, exactly as the
// reference runtime sends it. Code that writes ttrpc messages on a logical
// connection itself must write them the same way.
//
// The reader here treats each logical connection as a byte stream and
// accepts frames up to [MaxFramePayload], the largest the reference writer
// produces (a 10-byte ttrpc header plus a 4 MiB message). A larger declared
// length ends the trunk before anything is allocated for it.
//
// # Ending
//
// When the trunk ends, by EOF, an error or an oversized frame, the whole mux
// ends. Each logical connection still returns the data it had queued, then
// io.EOF if the peer closed the trunk between frames, or otherwise an error
// wrapping the cause: a frame cut short by EOF is not delivered and is
// reported as io.ErrUnexpectedEOF. Writes then fail with ErrClosed. Close,
// by contrast, drops queued data at once: Reads and Writes fail with an
// error matching both ErrClosed and net.ErrClosed.
//
// # Flow control
//
// Each logical connection queues received payloads until they are read, up
// to a frame limit ([WithQueueLimit], default 256) and about MaxFramePayload
// bytes. When a queue is full the trunk reader waits for the consumer instead
// of failing the trunk (the reference fails it) or dropping data, so a slow
// consumer on one connection delays frames for the others.
package mux
