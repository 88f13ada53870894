// SPDX-License-Identifier: Apache-2.0

package api

import (
	"errors"
	"strings"
	"testing"
)

func TestValidatePluginIdentity(t *testing.T) {
	tests := []struct {
		idx, name string
		want      error
		says      string
	}{
		{"10", "logger", nil, ""},
		{"00", "a.b+c_d-e", nil, ""},
		{"1", "x", ErrInvalidIndex, "exactly 2 digits"},
		{"100", "x", ErrInvalidIndex, "exactly 2 digits"},
		{"1a", "x", ErrInvalidIndex, "not [0-9][0-9]"},
		{"", "x", ErrInvalidIndex, "exactly 2 digits"},
		{"10", "", ErrInvalidName, "empty"},
		{"10", "bad/name", ErrInvalidName, `'/'`},
		{"10", "späce", ErrInvalidName, `'ä'`},
		{"10", strings.Repeat("n", MaxPluginNameLen+1), ErrInvalidName, "more than"},
	}
	for _, tt := range tests {
		err := ValidatePluginIdentity(tt.idx, tt.name)
		if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
			t.Errorf("(%q, %q): err = %v, want %v", tt.idx, tt.name, err, tt.want)
			continue
		}
		if err != nil && !strings.Contains(err.Error(), tt.says) {
			t.Errorf("(%q, %q): error %q does not say %q", tt.idx, tt.name, err, tt.says)
		}
	}
}

func FuzzValidatePluginIdentity(f *testing.F) {
	f.Add("10", "logger")
	f.Add("9", "x/y")
	f.Add("99", "\xff")
	f.Fuzz(func(t *testing.T, idx, name string) {
		if ValidatePluginIdentity(idx, name) != nil {
			return
		}
		if len(idx) != 2 || name == "" || len(name) > MaxPluginNameLen {
			t.Fatalf("accepted %q %q", idx, name)
		}
		for _, r := range name {
			if !isNameRune(r) {
				t.Fatalf("accepted name %q with %q", name, r)
			}
		}
	})
}
