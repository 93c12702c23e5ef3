// Command pkgsize prints, for each package directory given, its non-test
// Go files, their lines and its exported package-level names, largest
// first, then the sum over the directories under cmd (the face of the
// program): `go run ./scripts/pkgsize $(go list -f '{{.Dir}}' ./...)`.
package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
)

// size is one package's figures.
type size struct {
	dir                    string
	files, lines, exported int
}

func main() {
	root, err := os.Getwd()
	if err != nil {
		fail(err)
	}
	var sizes []size
	for _, dir := range os.Args[1:] {
		s, err := measure(dir)
		if err != nil {
			fail(err)
		}
		if rel, err := filepath.Rel(root, dir); err == nil {
			s.dir = rel
		}
		if s.files > 0 {
			sizes = append(sizes, s)
		}
	}
	sort.Slice(sizes, func(i, j int) bool {
		if sizes[i].lines != sizes[j].lines {
			return sizes[i].lines > sizes[j].lines
		}
		return sizes[i].dir < sizes[j].dir
	})
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "files\tlines\texported\tpackage\t")
	var face size
	for _, s := range sizes {
		fmt.Fprintf(w, "%d\t%d\t%d\t%s\t\n", s.files, s.lines, s.exported, s.dir)
		if s.dir == "cmd" || strings.HasPrefix(s.dir, "cmd/") {
			face.files, face.lines, face.exported = face.files+s.files, face.lines+s.lines, face.exported+s.exported
		}
	}
	fmt.Fprintf(w, "%d\t%d\t%d\t%s\t\n", face.files, face.lines, face.exported, "the face: every package under cmd")
	if err := w.Flush(); err != nil {
		fail(err)
	}
}

// measure counts dir's non-test Go files, their lines and the exported
// names they declare at package level (methods aside).
func measure(dir string) (size, error) {
	s := size{dir: dir}
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return s, err
	}
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return s, err
		}
		f, err := parser.ParseFile(fset, name, data, parser.SkipObjectResolution)
		if err != nil {
			return s, err
		}
		s.files++
		s.lines += bytes.Count(data, []byte("\n"))
		s.exported += exported(f)
	}
	return s, nil
}

// exported counts f's exported package-level funcs, types, vars and
// consts.
func exported(f *ast.File) int {
	n := 0
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				n++
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					if sp.Name.IsExported() {
						n++
					}
				case *ast.ValueSpec:
					for _, id := range sp.Names {
						if id.IsExported() {
							n++
						}
					}
				}
			}
		}
	}
	return n
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pkgsize:", err)
	os.Exit(1)
}
