// SPDX-License-Identifier: Apache-2.0

package api

import (
	"fmt"
	"unicode/utf8"
)

// MaxPluginNameLen bounds plugin names; the reference sets no bound, but a
// name travels into logs, metrics and ownership records, so a hostile plugin
// must not be able to make it arbitrarily large.
const MaxPluginNameLen = 256

// ValidatePluginIndex checks that idx is exactly two ASCII digits.
func ValidatePluginIndex(idx string) error {
	if len(idx) != 2 {
		return fmt.Errorf("%w %q: must be exactly 2 digits", ErrInvalidIndex, idx)
	}
	if !isDigit(idx[0]) || !isDigit(idx[1]) {
		return fmt.Errorf("%w %q: not [0-9][0-9]", ErrInvalidIndex, idx)
	}
	return nil
}

// ValidatePluginName checks that name is non-empty, at most MaxPluginNameLen
// bytes, and made only of [a-zA-Z0-9_.+-].
func ValidatePluginName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty", ErrInvalidName)
	case len(name) > MaxPluginNameLen:
		return fmt.Errorf("%w: %d bytes, more than %d", ErrInvalidName, len(name), MaxPluginNameLen)
	}
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		if !isNameRune(r) {
			return fmt.Errorf("%w %q: character %q at byte %d is not one of [a-zA-Z0-9_.+-]", ErrInvalidName, name, r, i)
		}
		i += size
	}
	return nil
}

// ValidatePluginIdentity checks an index and a name together.
func ValidatePluginIdentity(idx, name string) error {
	if err := ValidatePluginIndex(idx); err != nil {
		return err
	}
	return ValidatePluginName(name)
}

// PluginID is the "<idx>-<name>" form used in logs and ownership records.
func PluginID(idx, name string) string {
	return idx + "-" + name
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func isNameRune(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return r == '_' || r == '.' || r == '+' || r == '-'
}
