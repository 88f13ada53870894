// SPDX-License-Identifier: Apache-2.0

package panics

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func fails() (err error) {
	defer Recover(&err)
	panic(io.ErrUnexpectedEOF)
}

func returns() (err error) {
	defer Recover(&err)
	return io.EOF
}

// Recover turns a panic into an *Error of one line, with the panicking
// goroutine's stack, wrapping a panic value that is an error; without a
// panic it leaves the function's error as it was.
func TestRecover(t *testing.T) {
	err := fails()
	var pe *Error
	if !errors.As(err, &pe) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("error %v, want an *Error wrapping the panic value", err)
	}
	if err.Error() != "nrikit: panic: unexpected EOF" || !strings.Contains(pe.Stack, "panics.fails") {
		t.Errorf("error %q, stack %q", err, pe.Stack)
	}
	if err := returns(); err != io.EOF {
		t.Errorf("without a panic: %v", err)
	}
	multi := &Error{Value: "first line\nsecond line"}
	if multi.Error() != "nrikit: panic: first line" {
		t.Errorf("multi-line value gives %q", multi.Error())
	}
}
