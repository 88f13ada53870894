// SPDX-License-Identifier: Apache-2.0

package nrikit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The front door's bounds (docs/internals.md): adaptation holds the public
// API and the wiring of the components, and stays small enough to read.
const (
	maxFrontDoorFiles   = 45
	maxFrontDoorLines   = 6000
	maxFrontDoorMethods = 40
)

const frontDoor = "github.com/nrikit/nrikit/adaptation"

// goPackage is the non-test Go source of one directory.
type goPackage struct {
	dir   string
	files map[string]*ast.File
	lines int
}

// parseDir parses the non-test Go files of dir, build tags and all: every
// file counts, whatever the OS it builds on.
func parseDir(t *testing.T, dir string) goPackage {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	pkg := goPackage{dir: dir, files: map[string]*ast.File{}}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		pkg.files[name] = f
		pkg.lines += fset.File(f.Pos()).LineCount()
	}
	return pkg
}

// internalPackages lists the directories under internal/ that hold Go
// source.
func internalPackages(t *testing.T) []goPackage {
	t.Helper()
	var pkgs []goPackage
	err := filepath.WalkDir("internal", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || d.Name() == "testdata" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if p := parseDir(t, path); len(p.files) > 0 {
			pkgs = append(pkgs, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestInternalPackagesStayBelowTheFrontDoor: a component never imports
// adaptation (its sub-packages are its own: ocispec, validator), and says in
// its package comment what it is.
func TestInternalPackagesStayBelowTheFrontDoor(t *testing.T) {
	pkgs := internalPackages(t)
	if len(pkgs) == 0 {
		t.Fatal("no internal packages found")
	}
	for _, p := range pkgs {
		documented := false
		for name, f := range p.files {
			documented = documented || f.Doc != nil && strings.HasPrefix(f.Doc.Text(), "Package "+f.Name.Name+" ")
			for _, imp := range f.Imports {
				if path, _ := strconv.Unquote(imp.Path.Value); path == frontDoor {
					t.Errorf("%s imports %s: a component must not reach the front door", filepath.Join(p.dir, name), frontDoor)
				}
			}
		}
		if !documented {
			t.Errorf("%s has no package comment saying what it is", p.dir)
		}
	}
}

// TestFrontDoorStaysSmall: adaptation holds the public API and the
// wiring; what owns state is a component under internal/.
func TestFrontDoorStaysSmall(t *testing.T) {
	p := parseDir(t, "adaptation")
	methods := 0
	for _, f := range p.files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && receiverType(fd.Recv) == "Adaptation" {
				methods++
			}
		}
	}
	if n := len(p.files); n > maxFrontDoorFiles {
		t.Errorf("adaptation has %d files, more than %d", n, maxFrontDoorFiles)
	}
	if p.lines > maxFrontDoorLines {
		t.Errorf("adaptation has %d lines, more than %d", p.lines, maxFrontDoorLines)
	}
	if methods > maxFrontDoorMethods {
		t.Errorf("*Adaptation has %d methods, more than %d", methods, maxFrontDoorMethods)
	}
	t.Logf("adaptation: %d files, %d lines, %d methods on *Adaptation", len(p.files), p.lines, methods)
}

func receiverType(recv *ast.FieldList) string {
	typ := recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
