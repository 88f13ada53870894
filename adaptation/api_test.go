// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"bytes"
	"flag"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateAPI = flag.Bool("update", false, "rewrite testdata/api.txt from the package's exported identifiers")

// TestPublicAPI: the package's exported identifiers, with their signatures,
// are those in testdata/api.txt, so that moving code between files and into
// internal packages provably keeps the public API. An intended change is made
// with -update, and shows in the diff of testdata/api.txt.
func TestPublicAPI(t *testing.T) {
	got, err := exportedAPI(".")
	if err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/api.txt"
	if *updateAPI {
		if err := os.WriteFile(golden, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for _, w := range want {
		if _, found := slices.BinarySearch(got, w); !found {
			t.Errorf("gone or changed: %s", w)
		}
	}
	for _, g := range got {
		if _, found := slices.BinarySearch(want, g); !found {
			t.Errorf("new: %s", g)
		}
	}
	if t.Failed() {
		t.Log("if the change is intended: go test -run TestPublicAPI ./adaptation -update")
	}
}

// exportedAPI lists, sorted, one line per exported identifier of the
// package in dir: constants and variables with their type (not their
// value), functions and methods with their signature, types with their
// definition less unexported fields and methods, struct fields and
// interface methods each on a line of their own.
func exportedAPI(dir string) ([]string, error) {
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if f.Name.Name != "adaptation" {
			continue
		}
		for _, decl := range f.Decls {
			lines = append(lines, declLines(fset, decl)...)
		}
	}
	slices.Sort(lines)
	return slices.Compact(lines), nil
}

func declLines(fset *token.FileSet, decl ast.Decl) []string {
	show := func(n ast.Node) string {
		var b bytes.Buffer
		_ = printer.Fprint(&b, fset, n)
		return strings.Join(strings.Fields(b.String()), " ")
	}
	var lines []string
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() {
			return nil
		}
		recv := ""
		if d.Recv != nil {
			typ := show(d.Recv.List[0].Type)
			if !ast.IsExported(strings.TrimLeft(typ, "*")) {
				return nil
			}
			recv = "(" + typ + ") "
		}
		return []string{"func " + recv + d.Name.Name + strings.TrimPrefix(show(d.Type), "func")}
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if !n.IsExported() {
						continue
					}
					line := d.Tok.String() + " " + n.Name
					if s.Type != nil {
						line += " " + show(s.Type)
					}
					lines = append(lines, line)
				}
			case *ast.TypeSpec:
				if s.Name.IsExported() {
					lines = append(lines, typeLines(s, show)...)
				}
			}
		}
	}
	return lines
}

func typeLines(s *ast.TypeSpec, show func(ast.Node) string) []string {
	head := "type " + s.Name.Name
	if s.TypeParams != nil {
		head += show(s.TypeParams)
	}
	if s.Assign.IsValid() {
		head += " ="
	}
	members := func(kind string, fields *ast.FieldList) []string {
		lines := []string{head + " " + kind}
		for _, f := range fields.List {
			for _, n := range f.Names {
				if n.IsExported() {
					lines = append(lines, head+" "+kind+" "+n.Name+" "+show(f.Type))
				}
			}
			if len(f.Names) == 0 { // embedded
				lines = append(lines, head+" "+kind+" embeds "+show(f.Type))
			}
		}
		return lines
	}
	switch t := s.Type.(type) {
	case *ast.StructType:
		return members("struct", t.Fields)
	case *ast.InterfaceType:
		return members("interface", t.Methods)
	default:
		return []string{head + " " + show(s.Type)}
	}
}
