// SPDX-License-Identifier: Apache-2.0

// The gRPC status codes of nrikit's errors, for a runtime to pass on to its caller.

package nri

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The codes of what nrikit fails a runtime's operation for (the porting
// guide argues them):
const (
	// CodeUnavailable: a plugin the operation needs is not there or did
	// not answer (not ready, timed out, lost); it may be back soon.
	CodeUnavailable = codes.Unavailable
	// CodeRefused: a plugin, a validator or the node's policy refused the
	// operation as asked (a plugin's error, a rejection, conflicting
	// adjustments, a pod already removed); retried unchanged, it fails
	// again until the plugins or the policy change.
	CodeRefused = codes.FailedPrecondition
)

// Coded is a sentinel error that carries the gRPC status code of the
// errors that wrap it: grpc's status.FromError (and so containerd's
// errgrpc.ToGRPC) finds GRPCStatus anywhere in an error's chain, and takes
// the whole error's text as the status message.
type Coded struct {
	text string
	code codes.Code
}

// NewCoded is a sentinel error with text and code.
func NewCoded(code codes.Code, text string) *Coded { return &Coded{text: text, code: code} }

func (e *Coded) Error() string { return e.text }

// GRPCStatus is the sentinel's code with its text.
func (e *Coded) GRPCStatus() *status.Status { return status.New(e.code, e.text) }

// codedError gives err a gRPC status code; it reads and unwraps as err.
type codedError struct {
	err  error
	code codes.Code
}

// WithCode gives err the gRPC status code code, whatever codes err's chain
// carries (a plugin's own status error, say): the outermost code is the
// one status.FromError finds. It reads and unwraps as err.
func WithCode(err error, code codes.Code) error {
	if err == nil {
		return nil
	}
	return &codedError{err: err, code: code}
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// GRPCStatus is the code WithCode gave, with the error's text.
func (e *codedError) GRPCStatus() *status.Status { return status.New(e.code, e.err.Error()) }

// CodeOf is the code of the first error of err's chain that carries one,
// or fallback when none does.
func CodeOf(err error, fallback codes.Code) codes.Code {
	var s interface{ GRPCStatus() *status.Status }
	if errors.As(err, &s) {
		if st := s.GRPCStatus(); st != nil {
			return st.Code()
		}
	}
	return fallback
}

// ContextCode is the code of a context's end: DeadlineExceeded or
// Canceled (Unknown for another cause).
func ContextCode(cause error) codes.Code {
	switch {
	case errors.Is(cause, context.DeadlineExceeded):
		return codes.DeadlineExceeded
	case errors.Is(cause, context.Canceled):
		return codes.Canceled
	}
	return codes.Unknown
}
