// SPDX-License-Identifier: Apache-2.0

package nrikit_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/nrikit/nrikit"
)

// The version is a semantic version tag, and CHANGELOG.md has a section for
// it: a release cannot report a version the changelog does not describe.
func TestVersionIsInTheChangelog(t *testing.T) {
	if !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(nrikit.Version) {
		t.Fatalf("Version %q is not a vMAJOR.MINOR.PATCH tag", nrikit.Version)
	}
	changelog, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	heading := "## [" + strings.TrimPrefix(nrikit.Version, "v") + "] - "
	if !strings.Contains(string(changelog), "\n"+heading) {
		t.Errorf("CHANGELOG.md has no section %q for Version", heading)
	}
	if !strings.Contains(string(changelog), "\n## [Unreleased]\n") {
		t.Error("CHANGELOG.md has no [Unreleased] section")
	}
}
