// SPDX-License-Identifier: Apache-2.0

package relay

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestBoundedText(t *testing.T) {
	short := errors.New("short")
	if boundedText(short) != short {
		t.Error("a short error was changed")
	}
	long := status.Error(codes.Unknown, strings.Repeat("é", maxErrorText))
	cut := boundedText(long)
	if n := len(cut.Error()); n > maxErrorText+64 {
		t.Errorf("cut text is %d bytes", n)
	}
	if !utf8.ValidString(cut.Error()) || !strings.HasSuffix(cut.Error(), "bytes more)") {
		t.Errorf("cut text ends %q", cut.Error()[len(cut.Error())-40:])
	}
	if status.Code(cut) != codes.Unknown || !errors.Is(cut, long) {
		t.Error("the cut error no longer wraps the plugin's status")
	}
}
