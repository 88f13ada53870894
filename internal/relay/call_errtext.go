// SPDX-License-Identifier: Apache-2.0

// Bounding the text of errors whose words come from a plugin.

package relay

import "fmt"

// maxErrorText bounds the text of an error whose words come from a plugin
// (its error message, the keys of a conflicting adjustment): it goes into
// the runtime's log and back to the runtime's caller, where megabytes from
// one reply would flood both.
const maxErrorText = 4096

// boundedText cuts err's text to maxErrorText bytes. errors.Is and As still
// see the error it wraps.
func boundedText(err error) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	if len(text) <= maxErrorText {
		return err
	}
	cut := maxErrorText
	for cut > 0 && !utf8Start(text[cut]) {
		cut--
	}
	return &cutError{err: err, text: fmt.Sprintf("%s... (%d bytes more)", text[:cut], len(text)-cut)}
}

// utf8Start reports whether b begins a UTF-8 sequence, so that a cut there
// leaves whole characters.
func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

type cutError struct {
	err  error
	text string
}

func (e *cutError) Error() string { return e.text }
func (e *cutError) Unwrap() error { return e.err }
