// SPDX-License-Identifier: Apache-2.0

// The error naming the field of a string that is not valid UTF-8.

package utf8check

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// ErrInvalidUTF8 is wrapped by the error of a message that holds a string
// that is not valid UTF-8; the error names the field.
var ErrInvalidUTF8 = errors.New("nrikit: string is not valid UTF-8")

// Check returns an error naming the string that is not valid UTF-8 in b, an
// encoding of a message described by md, as the what ("request", "reply")
// of a call; nil if there is none.
func Check(what string, b []byte, md protoreflect.MessageDescriptor) error {
	if path, bad := Encoded(b, md); bad {
		return fmt.Errorf("%w: %s field %s", ErrInvalidUTF8, what, path)
	}
	return nil
}

// IsDecodeError reports whether err is protobuf's decoding error for an
// invalid string, which does not name the field.
func IsDecodeError(err error) bool {
	var u interface{ InvalidUTF8() bool }
	return errors.As(err, &u) && u.InvalidUTF8()
}
