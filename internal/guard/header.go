// SPDX-License-Identifier: Apache-2.0

package guard

import "encoding/binary"

// HeaderSize is the size of a ttrpc message header.
const HeaderSize = 10

// MaxMessage is ttrpc's limit on a message's length; ttrpc discards a longer
// message without allocating for it and answers ResourceExhausted.
const MaxMessage = 4 << 20

// MessageType is a ttrpc message type.
type MessageType uint8

// The ttrpc message types. Data messages belong to streams, which nrikit
// never opens.
const (
	TypeRequest  MessageType = 1
	TypeResponse MessageType = 2
	TypeData     MessageType = 3
)

func (t MessageType) String() string {
	switch t {
	case TypeRequest:
		return "request"
	case TypeResponse:
		return "response"
	case TypeData:
		return "data"
	}
	return "unknown"
}

// FlagRemoteClosed on a request says the caller sends nothing more on its
// stream: the shape of a unary call. Any other flag opens a stream.
const FlagRemoteClosed uint8 = 0x01

// Header is a ttrpc message header.
type Header struct {
	Length   uint32
	StreamID uint32
	Type     MessageType
	Flags    uint8
}

// ParseHeader reads the header at the start of b (at least HeaderSize bytes).
func ParseHeader(b []byte) Header {
	return Header{
		Length:   binary.BigEndian.Uint32(b[0:4]),
		StreamID: binary.BigEndian.Uint32(b[4:8]),
		Type:     MessageType(b[8]),
		Flags:    b[9],
	}
}

// AppendHeader appends h's wire form to b.
func AppendHeader(b []byte, h Header) []byte {
	b = binary.BigEndian.AppendUint32(b, h.Length)
	b = binary.BigEndian.AppendUint32(b, h.StreamID)
	return append(b, byte(h.Type), h.Flags)
}
