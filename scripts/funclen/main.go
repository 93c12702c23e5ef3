// Command funclen prints the longest functions (non-test) of the given
// package directories: `go run ./scripts/funclen cmd/tune`.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	type fn struct {
		name string
		n    int
	}
	var out []fn
	for _, dir := range os.Args[1:] {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			fs := token.NewFileSet()
			af, err := parser.ParseFile(fs, f, nil, 0)
			if err != nil {
				panic(err)
			}
			for _, d := range af.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
					n := fs.Position(fd.End()).Line - fs.Position(fd.Pos()).Line + 1
					out = append(out, fn{filepath.Base(f) + ":" + fd.Name.Name, n})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].n > out[j].n })
	for _, f := range out[:min(6, len(out))] {
		fmt.Printf("%4d %s\n", f.n, f.name)
	}
}
