// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"testing"

	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestTimeoutReasonUnderItsRow: a CreateContainer that times out has its
// reason, with the flag that sets the limit, under the CreateContainer row
// and not under the validation's row that follows, in both modes.
func TestTimeoutReasonUnderItsRow(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(),
		testplugin.Config{Index: "10", Name: "ok"},
		testplugin.Config{Index: "20", Name: "stuck", Behaviours: map[string]testplugin.Behaviour{"CreateContainer": {Hang: true}}},
	)
	for _, mode := range [][]string{nil, {"--conformance"}} {
		r := runCmd(t, append([]string{"--plugin-path", pluginDir, "--request-timeout", "300ms"}, mode...)...)
		lines := strings.Split(r.stdout, "\n")
		row := -1
		for i, l := range lines {
			if strings.Contains(l, "CreateContainer") && strings.Contains(l, "20-stuck timeout ") {
				row = i
				break
			}
		}
		if row < 0 || row+2 >= len(lines) {
			t.Fatalf("%q: no CreateContainer row with 20-stuck's timeout:\n%s", mode, r.stdout)
		}
		reason, next := strings.TrimSpace(lines[row+1]), strings.TrimSpace(lines[row+2])
		if !strings.HasPrefix(reason, "20-stuck timeout: ") || !strings.Contains(reason, "timed out after 300ms") ||
			!strings.HasSuffix(reason, "(the limit is --request-timeout)") {
			t.Errorf("%q: the line under the CreateContainer row is %q, want 20-stuck's timeout with the flag", mode, reason)
		}
		if !strings.HasPrefix(next, "+ ValidateContainerAdjustment") {
			t.Errorf("%q: after the reason comes %q, want the validation's row", mode, next)
		}
		if n := strings.Count(r.stdout, "20-stuck timeout: "); n != 1 {
			t.Errorf("%q: the reason appears %d times, want once:\n%s", mode, n, r.stdout)
		}
	}
}
