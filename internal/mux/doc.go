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
// The writer never sends a frame with more than [MaxWritePayload] (4096)
// payload bytes. The reference Go reader hands one whole frame to each Read
// and fails when the caller's buffer is smaller; its ttrpc sits on a 4096-byte
// bufio.Reader, so a larger frame that starts a message makes it drop the
// connection. The reader here treats each logical connection as a byte stream
// and accepts frames up to [MaxFramePayload], the largest the reference writer
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
