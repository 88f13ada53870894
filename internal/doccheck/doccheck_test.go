// SPDX-License-Identifier: Apache-2.0

package doccheck

import (
	"path/filepath"
	"slices"
	"testing"
)

// repoRoot is the module root, from this package's directory.
const repoRoot = "../.."

// TestRepositoryDocs: every relative link and anchor in README.md and
// docs/*.md resolves, and so does every pkg.go.dev link into the module.
func TestRepositoryDocs(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no docs/*.md found")
	}
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, filepath.ToSlash(must(filepath.Rel(repoRoot, d))))
	}
	problems, err := Check(repoRoot, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestBrokenLinksFound: the check reports what a reader would stumble over,
// and nothing inside code.
func TestBrokenLinksFound(t *testing.T) {
	problems, err := Check("testdata", []string{"broken.md"})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, p := range problems {
		got = append(got, p.Link.Line)
	}
	// broken.md marks each line that must be reported with "BROKEN".
	want := []int{5, 6, 7, 8, 9, 10}
	if !slices.Equal(got, want) {
		t.Errorf("reported lines %v, want %v: %v", got, want, problems)
	}
}

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"What happens when a plugin fails":           "what-happens-when-a-plugin-fails",
		"Conformance: `nritest --conformance`":       "conformance-nritest---conformance",
		"Applying adjustments: `adaptation/ocispec`": "applying-adjustments-adaptationocispec",
		"Locking: what SyncFn and UpdateFn may do":   "locking-what-syncfn-and-updatefn-may-do",
		"Requests over 4 MiB":                        "requests-over-4-mib",
		"The [api](api) helpers":                     "the-api-helpers",
		"snake_case *stays*":                         "snake_case-stays",
	} {
		if got := Slug(heading); got != want {
			t.Errorf("Slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestAnchorsSkipCodeAndNumberRepeats(t *testing.T) {
	md := "# Title\n\n```\n# not a heading\n```\n\n## Example\n\n### Example\n"
	got := Anchors(md)
	for _, a := range []string{"title", "example", "example-1"} {
		if !got[a] {
			t.Errorf("anchor %q missing from %v", a, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a line in a fenced block counted as a heading")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
