// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"bufio"
	"encoding/binary"
	"io"
	"sync"
)

// FrameHeaderSize is the size of a frame header: connection ID and payload
// length. A message given to Direct.Send starts with this much room for it.
const FrameHeaderSize = 8

const headerSize = FrameHeaderSize

// readBufferSize holds several 4096-byte frames, so small frames cost no
// extra system calls.
const readBufferSize = 32 << 10

type header struct {
	id   ConnID
	size uint32
}

func appendHeader(b []byte, id ConnID, size int) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(id))
	return binary.BigEndian.AppendUint32(b, uint32(size))
}

func parseHeader(b []byte) header {
	return header{
		id:   ConnID(binary.BigEndian.Uint32(b[0:4])),
		size: binary.BigEndian.Uint32(b[4:8]),
	}
}

// frameReader reads frames from the trunk. It never allocates on behalf of a
// header; callers check the declared size before asking for the payload.
type frameReader struct {
	r   *bufio.Reader
	hdr [headerSize]byte
}

func newFrameReader(r io.Reader) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, readBufferSize)}
}

// next reads a header. It returns io.EOF only at a clean frame boundary.
func (fr *frameReader) next() (header, error) {
	if _, err := io.ReadFull(fr.r, fr.hdr[:]); err != nil {
		return header{}, err
	}
	return parseHeader(fr.hdr[:]), nil
}

// payload reads n payload bytes into a buffer from getPayload, which the
// caller owns and may give back with putPayload.
func (fr *frameReader) payload(n uint32) (*[]byte, error) {
	p := getPayload(int(n))
	if _, err := io.ReadFull(fr.r, *p); err != nil {
		putPayload(p)
		return nil, noEOF(err)
	}
	return p, nil
}

// payloads recycles the buffers of frames once their connection has read
// them: a buffer per frame would be an allocation per message. The pool
// holds pointers, so that giving one back allocates nothing either.
var payloads sync.Pool

// keptPayload is the largest buffer kept for reuse: nearly all frames that
// nrikit and the reference write are at most MaxStartPayload bytes (ttrpc
// messages up to 4096 bytes, and the first 4096 bytes of larger ones); the
// rare bigger ones, the rest of a large message, are not worth holding on to.
const keptPayload = 64 << 10

// getPayload returns a buffer of n bytes.
func getPayload(n int) *[]byte {
	if p, _ := payloads.Get().(*[]byte); p != nil && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	b := make([]byte, n, max(n, MaxStartPayload))
	return &b
}

// putPayload gives a buffer back once nothing refers to its bytes.
func putPayload(p *[]byte) {
	if cap(*p) <= keptPayload {
		payloads.Put(p)
	}
}

// skip discards n payload bytes without buffering them.
func (fr *frameReader) skip(n uint32) error {
	_, err := fr.r.Discard(int(n))
	return noEOF(err)
}
