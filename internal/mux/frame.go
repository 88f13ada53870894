package mux

import (
	"bufio"
	"encoding/binary"
	"io"
)

// headerSize is the size of a frame header: connection ID and payload length.
const headerSize = 8

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

// payload reads n payload bytes into a new buffer that the caller owns.
func (fr *frameReader) payload(n uint32) ([]byte, error) {
	p := make([]byte, n)
	if _, err := io.ReadFull(fr.r, p); err != nil {
		return nil, noEOF(err)
	}
	return p, nil
}

// skip discards n payload bytes without buffering them.
func (fr *frameReader) skip(n uint32) error {
	_, err := fr.r.Discard(int(n))
	return noEOF(err)
}
