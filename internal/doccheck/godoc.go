// SPDX-License-Identifier: Apache-2.0

package doccheck

import (
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// godocAnchors returns the anchors pkg.go.dev gives a package's page: its
// exported identifiers (methods and fields as Type.Name) and the headings of
// its package doc (hdr-…).
func godocAnchors(dir string) (map[string]bool, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, "example.com/pkg")
	if err != nil {
		return nil, err
	}
	anchors := map[string]bool{}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, n := range v.Names {
				anchors[n] = true
			}
		}
	}
	funcs := func(fs []*doc.Func, recv string) {
		for _, f := range fs {
			anchors[recv+f.Name] = true
		}
	}
	values(pkg.Consts)
	values(pkg.Vars)
	funcs(pkg.Funcs, "")
	for _, t := range pkg.Types {
		anchors[t.Name] = true
		values(t.Consts)
		values(t.Vars)
		funcs(t.Funcs, "")
		funcs(t.Methods, t.Name+".")
		if st, ok := t.Decl.Specs[0].(*ast.TypeSpec).Type.(*ast.StructType); ok {
			for _, f := range st.Fields.List {
				for _, n := range f.Names {
					anchors[t.Name+"."+n.Name] = true
				}
			}
		}
	}
	for _, b := range new(comment.Parser).Parse(pkg.Doc).Content {
		if h, ok := b.(*comment.Heading); ok {
			anchors[h.DefaultID()] = true
		}
	}
	return anchors, nil
}
