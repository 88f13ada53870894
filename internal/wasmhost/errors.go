//go:build !nrikit_no_wasm

package wasmhost

import (
	"errors"
	"fmt"
)

var (
	// ErrDead: the guest's instance was closed by an earlier failure or by
	// Close; it cannot be called any more.
	ErrDead = errors.New("nrikit: WASM plugin instance is closed")
	// ErrNoExport: the guest does not export the function called.
	ErrNoExport = errors.New("nrikit: WASM plugin does not export the function")
)

// GuestError is an error the guest returned as its answer (the error string
// of the ABI): the guest is fine, the request failed.
type GuestError struct{ Msg string }

func (e *GuestError) Error() string { return e.Msg }

// CrashError is a call that ended the guest: a trap, an exit, a deadline
// that passed while it ran, or an answer that breaks the ABI. The instance
// is closed.
type CrashError struct {
	Export string
	Err    error
}

func (e *CrashError) Error() string {
	return fmt.Sprintf("nrikit: WASM plugin crashed in %s: %v", e.Export, e.Err)
}

func (e *CrashError) Unwrap() []error { return []error{ErrDead, e.Err} }
