// Command gendocs writes the manual's generated reference pages
// (docs/reference) from the code: run it from the repository's root, or
// `make docs`.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/refdoc"
)

func main() {
	pages, err := refdoc.Pages(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
	for _, p := range pages {
		path := filepath.FromSlash(p.Path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "gendocs:", err)
			os.Exit(1)
		}
		if err := os.WriteFile(path, []byte(p.Text), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gendocs:", err)
			os.Exit(1)
		}
		fmt.Println("wrote", path)
	}
}
