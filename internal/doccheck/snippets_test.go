// SPDX-License-Identifier: Apache-2.0

package doccheck

import (
	"bytes"
	"context"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/internal/interoptest"
)

// docFiles are README.md and docs/*.md, relative to the root.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md found (%v)", err)
	}
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, filepath.ToSlash(must(filepath.Rel(repoRoot, d))))
	}
	return files
}

// located is a snippet and where it is.
type located struct {
	Snippet
	file string
}

func (s located) String() string { return fmt.Sprintf("%s:%d", s.file, s.Line) }

func allSnippets(t *testing.T) []located {
	t.Helper()
	var out []located
	for _, f := range docFiles(t) {
		text, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range GoSnippets(string(text)) {
			out = append(out, located{s, f})
		}
	}
	return out
}

// TestGoSnippetsCompileAsShown: a reader copies a Go block of the docs and it
// builds. A whole file (package clause first) is built as it is, in a module
// of its own that requires this one (one that imports the reference's stub,
// a plugin, in a module requiring github.com/containerd/nri as
// testdata/interop/modern does); an excerpt must be quoted line for line from
// a compiled Go file of this module; a runtime's code, marked in its fence
// ("```go containerd"), must parse.
func TestGoSnippetsCompileAsShown(t *testing.T) {
	sources := moduleGoSources(t)
	var programs []located
	for _, s := range allSnippets(t) {
		switch s.Kind() {
		case Program:
			if formatted, err := format.Source([]byte(s.Code)); err != nil || string(formatted) != s.Code {
				t.Errorf("%s: not as gofmt lays it out (%v)", s, err)
			}
			programs = append(programs, s)
		case Excerpt:
			if !quotedInAny(s.Code, sources) {
				t.Errorf("%s: a Go block that is neither a whole file (package clause first) nor quoted line for line from a Go file of the module; mark a runtime's code with its name after go in the fence:\n%s", s, s.Code)
			}
		case RuntimeCode:
			if err := ParseRuntimeCode(s.Code); err != nil {
				t.Errorf("%s: %s code does not parse: %v", s, s.Info, err)
			}
		}
	}
	if len(programs) == 0 {
		t.Fatal("no whole-file Go block in the docs")
	}
	buildPrograms(t, programs)
}

// TestFrontDocsSnippetsAreWholeFiles: the README's, the runtime guide's and
// the plugin authors' guide's Go blocks are programs a newcomer can copy, and
// the runtime guide shows the calls a runtime wires beyond the events.
func TestFrontDocsSnippetsAreWholeFiles(t *testing.T) {
	shown := map[string]string{}
	for _, s := range allSnippets(t) {
		switch s.file {
		case "README.md", "docs/runtime-guide.md", "docs/plugin-authors.md":
		default:
			continue
		}
		if s.Kind() != Program {
			t.Errorf("%s: not a whole Go file", s)
		}
		shown[s.file] += s.Code
	}
	for _, call := range []string{".AwaitPlugins(", ".Status()", ".ContainerRecord(", "StatusSocket", ".Readiness().Condition()", "ErrPluginsNotReady"} {
		if !strings.Contains(shown["docs/runtime-guide.md"], call) {
			t.Errorf("docs/runtime-guide.md: no Go block shows %s", call)
		}
	}
	if !strings.Contains(shown["docs/plugin-authors.md"], "stub.New(") {
		t.Error("docs/plugin-authors.md: no Go block shows a plugin on the reference stub")
	}
}

// TestSnippetKinds: the kinds are told apart as the check needs.
func TestSnippetKinds(t *testing.T) {
	md := "a\n```go\npackage main\n\nfunc main() {}\n```\n- item\n\n  ```go containerd\n  if c.nri.IsEnabled() {\n  \tx()\n  }\n  ```\n```go\nx := 1\n```\n"
	got := GoSnippets(md)
	if len(got) != 3 {
		t.Fatalf("GoSnippets found %d blocks, want 3: %+v", len(got), got)
	}
	if got[0].Kind() != Program || got[1].Kind() != RuntimeCode || got[2].Kind() != Excerpt {
		t.Errorf("kinds %v %v %v, want Program RuntimeCode Excerpt", got[0].Kind(), got[1].Kind(), got[2].Kind())
	}
	if got[1].Line != 9 || got[1].Code != "if c.nri.IsEnabled() {\n\tx()\n}\n" {
		t.Errorf("runtime code at line %d: %q", got[1].Line, got[1].Code)
	}
	if err := ParseRuntimeCode(got[1].Code); err != nil {
		t.Error(err)
	}
	if err := ParseRuntimeCode("if x { ... }"); err == nil {
		t.Error("a block holding { ... } parsed")
	}
	if !QuotedIn("b := 2\n\n  c()", "func f() {\n\ta := 1\n\tb := 2\n\tc()\n}") {
		t.Error("an excerpt quoted line for line was not found")
	}
	if QuotedIn("a := 1\nc()", "a := 1\nb := 2\nc()") {
		t.Error("an excerpt that skips a line was found")
	}
}

// moduleGoSources reads every Go file of the module outside testdata.
func moduleGoSources(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != repoRoot {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out = append(out, string(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func quotedInAny(excerpt string, sources []string) bool {
	for _, src := range sources {
		if QuotedIn(excerpt, src) {
			return true
		}
	}
	return false
}

const referenceImport = `"github.com/containerd/nri/`

// buildPrograms builds each program in a directory of its own: those on the
// reference's stub in a module shaped like testdata/interop/modern, the
// others in one that requires this module through a replace directive. Both
// resolve from the module cache that the module's and the interop modules'
// go mod download fill, so the check runs offline there.
func buildPrograms(t *testing.T, programs []located) {
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	nrikitMod := fmt.Sprintf("module snippets\n\ngo 1.24.0\n\nrequire %s v0.0.0-00010101000000-000000000000\n\nreplace %[1]s => %q\n",
		interoptest.Module, root)
	modernDir := filepath.Join(root, "testdata", "interop", "modern")
	modernMod := regexp.MustCompile(`(?m)^module .*$`).ReplaceAllString(string(must(os.ReadFile(filepath.Join(modernDir, "go.mod")))), "module snippets")

	modules := map[string]*snippetModule{
		"nrikit":    {goMod: nrikitMod, goSum: filepath.Join(root, "go.sum")},
		"reference": {goMod: modernMod, goSum: filepath.Join(modernDir, "go.sum")},
	}
	for _, p := range programs {
		m := modules["nrikit"]
		if strings.Contains(p.Code, referenceImport) {
			m = modules["reference"]
		}
		m.programs = append(m.programs, p)
	}
	for name, m := range modules {
		if len(m.programs) > 0 {
			m.build(t, name)
		}
	}
}

type snippetModule struct {
	goMod, goSum string
	programs     []located
}

func (m *snippetModule) build(t *testing.T, name string) {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), m.goMod)
	write(t, filepath.Join(dir, "go.sum"), string(must(os.ReadFile(m.goSum))))
	where := map[string]located{}
	for i, p := range m.programs {
		pkg := fmt.Sprintf("s%02d", i)
		where[pkg] = p
		write(t, filepath.Join(dir, pkg, "snippet.go"), p.Code)
	}
	goTool, err := interoptest.GoTool()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), interoptest.BuildTimeout)
	defer cancel()
	bin := t.TempDir() + string(filepath.Separator)
	for _, args := range [][]string{{"build", "-o", bin, "./..."}, {"vet", "./..."}} {
		cmd := exec.CommandContext(ctx, goTool, args...)
		cmd.Dir = dir
		cmd.Env = append(interoptest.BuildEnv(), "GOFLAGS=-mod=mod -buildvcs=false")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Run(); err != nil {
			t.Errorf("go %s of the docs' programs (%s module): %v after %v\n%s", args[0], name, err, time.Since(start).Round(time.Millisecond), blame(out.String(), where))
			return
		}
	}
}

// blame names each program's doc file and line in go's output.
func blame(out string, where map[string]located) string {
	for pkg, p := range where {
		out = strings.ReplaceAll(out, pkg+"/snippet.go", fmt.Sprintf("%s (block at %s)", pkg+"/snippet.go", p))
		out = strings.ReplaceAll(out, "snippets/"+pkg, fmt.Sprintf("snippets/%s (block at %s)", pkg, p))
	}
	return out
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
