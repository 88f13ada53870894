// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"errors"
	"fmt"
)

// ErrInvalidAdjustment is wrapped by every error about a value that cannot
// be put into an OCI spec.
var ErrInvalidAdjustment = errors.New("invalid adjustment")

// ErrMountPropagation is wrapped by the error about an added mount whose
// propagation the host's mount of its source cannot give: the adjustment
// is valid, but not on this host.
var ErrMountPropagation = errors.New("unsupported mount propagation")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidAdjustment, fmt.Sprintf(format, args...))
}

// within names the entry an error is about, keeping the sentinel.
func within(what, key string, err error) error {
	return fmt.Errorf("%s %q: %w", what, key, err)
}

// outOfRange marks a value the OCI spec or the kernel cannot take (a
// *limits.FieldError naming the field) as an invalid adjustment.
func outOfRange(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrInvalidAdjustment, err)
}
