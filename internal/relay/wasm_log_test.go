// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

package relay

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestGuestLineIsShortValidUTF8: a guest's line is cut on a character
// boundary and what is not UTF-8 is replaced, so the runtime's log gets
// neither a 64 KiB line nor bytes its encoder cannot take.
func TestGuestLineIsShortValidUTF8(t *testing.T) {
	for name, msg := range map[string]string{
		"long, a character across the cut": strings.Repeat("a", guestLogMaxLine-1) + "é" + strings.Repeat("b", 100),
		"invalid bytes":                    strings.Repeat("\xffa", 32<<10),
		"carriage returns":                 strings.Repeat("x\r", 32<<10),
	} {
		got := guestLine(msg)
		if !utf8.ValidString(got) || len(got) > guestLogMaxLine+len(" [cut]") || !strings.HasSuffix(got, " [cut]") {
			t.Errorf("%s: got %d bytes, valid %v, ending %q", name, len(got), utf8.ValidString(got), got[max(0, len(got)-8):])
		}
	}
	if got := guestLine("short é"); got != "short é" {
		t.Errorf("a short valid line became %q", got)
	}
}
