// SPDX-License-Identifier: Apache-2.0

// The Go code blocks of the Markdown, and how each is held to compile as shown.

package doccheck

import (
	"go/parser"
	"go/token"
	"regexp"
	"strings"
)

// Snippet is one fenced Go code block.
type Snippet struct {
	Line int    // of the opening fence, 1-based
	Info string // what follows "go" in the fence's info string ("containerd")
	Code string // the block, the fence's indentation removed
}

// SnippetKind says how a snippet is held to compile as shown.
type SnippetKind int

const (
	// Program: a whole Go file (a package clause first), built as it is in a
	// module of its own that requires this one.
	Program SnippetKind = iota
	// Excerpt: lines quoted from a compiled Go file of this module (an
	// Example), found there line for line.
	Excerpt
	// RuntimeCode: code that goes into a runtime's own source, named in the
	// fence ("```go containerd"); it can only build there, so it is parsed and
	// checked for gofmt's layout.
	RuntimeCode
)

var goFence = regexp.MustCompile("^[ \t]*```go( .*)?$")

// GoSnippets returns the fenced ```go blocks of a Markdown text.
func GoSnippets(markdown string) []Snippet {
	var out []Snippet
	lines := strings.Split(markdown, "\n")
	for i := 0; i < len(lines); i++ {
		m := goFence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " \t"))
		s := Snippet{Line: i + 1, Info: strings.TrimSpace(m[1])}
		var body []string
		for i++; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) == "```" {
				break
			}
			body = append(body, trimIndent(lines[i], indent))
		}
		s.Code = strings.Join(body, "\n") + "\n"
		out = append(out, s)
	}
	return out
}

// trimIndent removes up to n leading spaces (a list item's indentation).
func trimIndent(line string, n int) string {
	for k := 0; k < n && strings.HasPrefix(line, " "); k++ {
		line = line[1:]
	}
	return line
}

// Kind says how s is checked.
func (s Snippet) Kind() SnippetKind {
	switch {
	case s.Info != "":
		return RuntimeCode
	case isProgram(s.Code):
		return Program
	default:
		return Excerpt
	}
}

// isProgram reports whether code is a Go file with its package clause.
func isProgram(code string) bool {
	_, err := parser.ParseFile(token.NewFileSet(), "snippet.go", code, parser.PackageClauseOnly)
	return err == nil
}

// ParseRuntimeCode parses a runtime's code: declarations, or statements as
// in a function body.
func ParseRuntimeCode(code string) error {
	fset := token.NewFileSet()
	if _, err := parser.ParseFile(fset, "snippet.go", "package p\n"+code, 0); err == nil {
		return nil
	}
	_, err := parser.ParseFile(fset, "snippet.go", "package p\nfunc _() {\n"+code+"\n}\n", 0)
	return err
}

// QuotedIn reports whether every non-blank line of an excerpt appears, in
// order and contiguous (blank lines aside), in source, leading whitespace
// ignored.
func QuotedIn(excerpt, source string) bool {
	want := significantLines(excerpt)
	if len(want) == 0 {
		return false
	}
	have := significantLines(source)
	for start := 0; start+len(want) <= len(have); start++ {
		match := true
		for k := range want {
			if have[start+k] != want[k] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

func significantLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
