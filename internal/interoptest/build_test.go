// SPDX-License-Identifier: Apache-2.0

package interoptest

import (
	"os"
	"strings"
	"testing"
)

// TestBuildFailsClearly builds the modern plugin with the module proxy off
// and an empty module cache: the error must carry go build's output and say
// that the reference module could not be fetched.
func TestBuildFailsClearly(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOMODCACHE", t.TempDir())
	t.Setenv("GOFLAGS", strings.TrimSpace(os.Getenv("GOFLAGS")+" -modcacherw"))
	_, _, err := buildModule("modern")
	if err == nil {
		t.Fatal("build succeeded without a module cache or proxy")
	}
	msg := err.Error()
	t.Logf("the failure reads:\n%s", msg)
	for _, want := range []string{"could not be fetched", ReferenceModule, "GOPROXY=off", "module lookup disabled"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not mention %q:\n%s", want, msg)
		}
	}
}

func TestBinaryRejectsBadNames(t *testing.T) {
	for _, name := range []string{"", "..", "../modern", "modern/..", ".hidden", "no-such-module"} {
		if _, err := binary(name); err == nil {
			t.Errorf("binary(%q) succeeded", name)
		}
	}
}

func TestRepoRoot(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root + "/testdata/interop/modern/go.mod"); err != nil {
		t.Errorf("RepoRoot %s: %v", root, err)
	}
}
