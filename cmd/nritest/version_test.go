// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"testing"

	"github.com/nrikit/nrikit"
	"github.com/nrikit/nrikit/adaptation"
)

// TestVersionFlag: --version prints nrikit's version and the NRI version
// nritest announces, exits 0 and runs nothing.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--version", "-version"} {
		r := runCmd(t, flag)
		want := "nritest " + nrikit.Version + " (NRI " + adaptation.Version + ", go"
		if r.code != exitOK || !strings.HasPrefix(r.stdout, want) || strings.Count(r.stdout, "\n") != 1 || r.stderr != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 0 and one line starting %q", flag, r.code, r.stdout, r.stderr, want)
		}
	}
}
