// SPDX-License-Identifier: Apache-2.0

package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestRevisionReported: the protocol revision each plugin speaks is in the
// text report's plugin table and in the JSON report.
func TestRevisionReported(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "events.log")
	pluginDir := installTestPlugins(t, dir,
		testplugin.Config{Index: "05", Name: "beta", Revision: testplugin.RevisionV1beta1, LogPath: log},
		testplugin.Config{Index: "15", Name: "alpha", LogPath: log},
	)
	r := runCmd(t, "--json", "--plugin-path", pluginDir)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseJSON(t, r.stdout)
	got := map[string]string{}
	for _, p := range rep.Active {
		got[p.Plugin] = p.Revision
	}
	if got["05-beta"] != "v1beta1" || got["15-alpha"] != "v1alpha1" {
		t.Errorf("JSON revisions = %v", got)
	}

	r = runCmd(t, "--plugin-path", pluginDir)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "REVISION") {
		t.Errorf("the plugin table has no REVISION column:\n%s", r.stdout)
	}
	for _, want := range [][]string{{"05-beta", "v1beta1"}, {"15-alpha", "v1alpha1"}} {
		if !hasRow(r.stdout, want...) {
			t.Errorf("no plugin row with %q:\n%s", want, r.stdout)
		}
	}
}

// hasRow reports whether a line of out has all the given fields.
func hasRow(out string, fields ...string) bool {
	for _, line := range strings.Split(out, "\n") {
		words := strings.Fields(line)
		all := true
		for _, f := range fields {
			if !slices.Contains(words, f) {
				all = false
			}
		}
		if all {
			return true
		}
	}
	return false
}
