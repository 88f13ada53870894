// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

package wasmhost

import (
	"errors"
	"fmt"
	"strings"
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
	// Said is the first line the guest wrote to stdout or stderr during the
	// call (a Go guest's panic or fatal error), if any.
	Said string
}

// Error gives the cause's first line: wazero appends a WASM stack trace.
func (e *CrashError) Error() string {
	msg, _, _ := strings.Cut(e.Err.Error(), "\n")
	msg = fmt.Sprintf("nrikit: WASM plugin crashed in %s: %s", e.Export, msg)
	if e.Said != "" {
		msg += fmt.Sprintf(" (the guest said: %q)", e.Said)
	}
	return msg
}

func (e *CrashError) Unwrap() []error { return []error{ErrDead, e.Err} }
