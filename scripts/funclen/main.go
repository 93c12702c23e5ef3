// Command funclen prints the longest functions (non-test) of the given
// package directories: `go run ./scripts/funclen cmd/tune` prints the six
// longest; `go run ./scripts/funclen -over 60 DIR...` prints every
// function longer than 60 lines, longest first, then their count.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// fn is one function declaration and its length in lines, from the func
// keyword to the closing brace.
type fn struct {
	name string
	n    int
}

func main() {
	over := flag.Int("over", 0, "list every function longer than this many lines and their count (0: the six longest)")
	flag.Parse()
	out, err := lengths(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "funclen:", err)
		os.Exit(1)
	}
	if *over <= 0 {
		for _, f := range out[:min(6, len(out))] {
			fmt.Printf("%4d %s\n", f.n, path.Base(f.name))
		}
		return
	}
	count := 0
	for _, f := range out {
		if f.n > *over {
			fmt.Printf("%4d %s\n", f.n, f.name)
			count++
		}
	}
	fmt.Printf("%d functions over %d lines\n", count, *over)
}

// lengths returns the length of every function with a body in the
// non-test files of dirs, longest first, each named by its file's path
// and its name (dir/file.go:Name).
func lengths(dirs []string) ([]fn, error) {
	var out []fn
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			fs := token.NewFileSet()
			af, err := parser.ParseFile(fs, f, nil, 0)
			if err != nil {
				return nil, err
			}
			name := filepath.ToSlash(f)
			for _, d := range af.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
					n := fs.Position(fd.End()).Line - fs.Position(fd.Pos()).Line + 1
					out = append(out, fn{name + ":" + fd.Name.Name, n})
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].n > out[j].n })
	return out, nil
}
