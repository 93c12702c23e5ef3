package checkfiles

import (
	"fmt"
	"io"
	"strings"
)

// CheckAll is `tune check`: it checks every file as kind (For; "auto"
// detects each), printing "ok FILE (summary)" to stdout and warnings and
// problems to stderr, and lists every problem before it fails. Every
// error is the user's: no files, --judgments with more than one file, a
// kind that does not apply, or files with problems.
func CheckAll(files []string, kind string, o Options, stdout, stderr io.Writer) error {
	if len(files) == 0 {
		return fmt.Errorf("check: no files given")
	}
	if o.Judgments != "" && len(files) != 1 {
		return fmt.Errorf("check: --judgments needs exactly one golden set (got %d files)", len(files))
	}
	bad := 0
	for _, path := range files {
		k, err := For(path, kind)
		if err != nil {
			return fmt.Errorf("check: %w", err)
		}
		summary, warnings, err := k.Check(path, o)
		for _, w := range warnings {
			fmt.Fprintf(stderr, "warning: %v\n", w)
		}
		if err != nil {
			bad++
			fmt.Fprintln(stderr, err)
			continue
		}
		// A summary's first line goes in parentheses, any further lines
		// (a golden set's grade scale and primary score) below it.
		first, rest, _ := strings.Cut(summary, "\n")
		fmt.Fprintf(stdout, "ok %s (%s)\n", path, first)
		for _, line := range strings.Split(rest, "\n") {
			if line != "" {
				fmt.Fprintf(stdout, "  %s\n", line)
			}
		}
	}
	if bad > 0 {
		return fmt.Errorf("check: %d of %d files have problems", bad, len(files))
	}
	return nil
}
