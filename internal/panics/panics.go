// SPDX-License-Identifier: Apache-2.0

// Package panics turns a panic in code that a plugin, a plugin file or a
// WASM guest can steer into an error, so that it ends that plugin and never
// the runtime process that links nrikit.
//
// Each goroutine nrikit starts to run such code defers Recover; tests make a
// chosen place panic through Inject.
package panics

import (
	"fmt"
	"runtime/debug"
	"strings"
	"sync/atomic"
)

// Error is a recovered panic.
type Error struct {
	// Value is what was passed to panic.
	Value any
	// Stack is the panicking goroutine's stack, for the log line that
	// reports the plugin's end.
	Stack string
}

// Error is one line: the stack goes to the log, not into messages that
// plugins or operators read.
func (e *Error) Error() string {
	msg, _, _ := strings.Cut(fmt.Sprint(e.Value), "\n")
	return "nrikit: panic: " + msg
}

// Unwrap is the panic value when it is an error (a runtime.Error, for one).
func (e *Error) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// Recover, deferred, turns a panic of the calling goroutine into an *Error
// in *err, replacing what *err held. It must be deferred itself, not called
// from a deferred function, for recover to see the panic.
func Recover(err *error) {
	if v := recover(); v != nil {
		*err = &Error{Value: v, Stack: string(debug.Stack())}
	}
}

// hook is the test hook of Inject.
var hook atomic.Pointer[func(place, subject string)]

// Inject calls the test hook, if one is set, with the name of the place
// that calls it and what it works on (a plugin's ID, a method; "" where the
// place does not know); the hook panics to test that place's recovery.
// Without a hook it costs one atomic load.
func Inject(place, subject string) {
	if h := hook.Load(); h != nil {
		(*h)(place, subject)
	}
}

// SetHook sets the hook Inject calls, for a test, and returns a function that
// removes it. Tests that set it must not run in parallel with each other.
func SetHook(fn func(place, subject string)) (remove func()) {
	hook.Store(&fn)
	return func() { hook.Store(nil) }
}
