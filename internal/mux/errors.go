// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"errors"
	"fmt"
	"io"
	"net"
)

var (
	// ErrClosed is returned by Open and Listen once the mux has ended, and
	// by Err after Close.
	ErrClosed = errors.New("nrikit: mux closed")
	// ErrFrameTooLarge is matched by the error that ends a trunk whose peer
	// declared a frame larger than MaxFramePayload; see FrameSizeError.
	ErrFrameTooLarge = errors.New("nrikit: mux frame too large")
	// ErrReservedID is returned when opening connection ID 0.
	ErrReservedID = errors.New("nrikit: mux connection ID 0 is reserved")
	// ErrConnOpen is returned when opening an ID that is already open.
	ErrConnOpen = errors.New("nrikit: mux connection already open")
)

// errMuxClosed is what logical connections report once their mux has ended.
// It also matches net.ErrClosed, which ttrpc treats as an orderly close.
var errMuxClosed = fmt.Errorf("%w (%w)", ErrClosed, net.ErrClosed)

// FrameSizeError reports a frame header declaring more than Limit payload
// bytes. It ends the trunk, and Mux.Err returns it.
type FrameSizeError struct {
	ID    ConnID
	Size  uint32
	Limit int
}

func (e *FrameSizeError) Error() string {
	return fmt.Sprintf("nrikit: mux frame of %d bytes exceeds limit %d (connection %d)",
		e.Size, e.Limit, e.ID)
}

// Unwrap makes errors.Is(err, ErrFrameTooLarge) hold.
func (e *FrameSizeError) Unwrap() error { return ErrFrameTooLarge }

// trunkReadError turns what ended the read loop into the mux's error. A clean
// EOF between frames stays io.EOF so logical connections can report it as is.
func trunkReadError(err error) error {
	if err == io.EOF {
		return err
	}
	return fmt.Errorf("nrikit: mux trunk read: %w", err)
}

// noEOF reports an EOF inside a frame as io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
