// SPDX-License-Identifier: Apache-2.0

package doccheck

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// modulePath is the import path pkg.go.dev links into this module start with.
const modulePath = "github.com/nrikit/nrikit"

const godocPrefix = "https://pkg.go.dev/" + modulePath

// Problem is a link that does not resolve.
type Problem struct {
	File string // relative to the root
	Link Link
	Why  string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Link.Line, p.Link.Target, p.Why)
}

// Check resolves every link of the Markdown files (paths relative to root,
// the module's root directory).
func Check(root string, files []string) ([]Problem, error) {
	c := checker{root: root, anchors: map[string]map[string]bool{}, godoc: map[string]map[string]bool{}}
	var problems []Problem
	for _, f := range files {
		text, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return nil, err
		}
		for _, l := range Links(string(text)) {
			why, err := c.resolve(f, l.Target)
			if err != nil {
				return nil, err
			}
			if why != "" {
				problems = append(problems, Problem{File: f, Link: l, Why: why})
			}
		}
	}
	return problems, nil
}

type checker struct {
	root    string
	anchors map[string]map[string]bool // by Markdown file
	godoc   map[string]map[string]bool // by package directory
}

// resolve says why target, linked from file, does not resolve ("" if it does).
func (c *checker) resolve(file, target string) (string, error) {
	if strings.HasPrefix(target, godocPrefix) {
		return c.resolveGodoc(strings.TrimPrefix(target, godocPrefix))
	}
	if u, err := url.Parse(target); err != nil || u.Scheme != "" {
		return "", nil // another site: not ours to check
	}
	path, anchor, _ := strings.Cut(target, "#")
	dest := file
	if path != "" {
		p, err := url.PathUnescape(path)
		if err != nil {
			return "bad escape in path", nil
		}
		dest = filepath.ToSlash(filepath.Join(filepath.Dir(file), p))
		if strings.HasPrefix(dest, "../") {
			return "outside the repository", nil
		}
		if _, err := os.Stat(filepath.Join(c.root, dest)); err != nil {
			return "no such file or directory", nil
		}
	}
	if anchor == "" {
		return "", nil
	}
	if !strings.HasSuffix(dest, ".md") {
		return "an anchor into a file that is not Markdown", nil
	}
	anchors, err := c.anchorsOf(dest)
	if err != nil {
		return "", err
	}
	if !anchors[anchor] {
		return fmt.Sprintf("no heading with anchor %q in %s", anchor, dest), nil
	}
	return "", nil
}

func (c *checker) anchorsOf(file string) (map[string]bool, error) {
	if a, ok := c.anchors[file]; ok {
		return a, nil
	}
	text, err := os.ReadFile(filepath.Join(c.root, file))
	if err != nil {
		return nil, err
	}
	c.anchors[file] = Anchors(string(text))
	return c.anchors[file], nil
}

// resolveGodoc checks "/pkg#Name" against the package's source.
func (c *checker) resolveGodoc(rest string) (string, error) {
	pkg, anchor, _ := strings.Cut(strings.TrimPrefix(rest, "/"), "#")
	dir := filepath.Join(c.root, filepath.FromSlash(pkg))
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Sprintf("no package %q in the module", pkg), nil
	}
	if anchor == "" {
		return "", nil
	}
	names, ok := c.godoc[dir]
	if !ok {
		var err error
		if names, err = godocAnchors(dir); err != nil {
			return "", err
		}
		c.godoc[dir] = names
	}
	if !names[anchor] {
		return fmt.Sprintf("package %q has no identifier or doc heading %q", pkg, anchor), nil
	}
	return "", nil
}
