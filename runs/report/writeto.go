package report

import (
	"bytes"
	"fmt"
	"io"

	"github.com/fusiontune/fusiontune/runs"
)

// WriteTo writes the run's report where `tune report --out` says: "" into
// the run directory (Write), "-" to stdout, any other path atomically. It
// returns the path written, "" for stdout.
func WriteTo(run *runs.Run, out string, stdout io.Writer, o Options) (string, error) {
	switch out {
	case "":
		return Write(run, o)
	case "-":
		return "", Render(stdout, run, o)
	}
	var b bytes.Buffer
	if err := Render(&b, run, o); err != nil {
		return "", err
	}
	if err := runs.WriteFileAtomic(out, b.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("report --out: %w", err)
	}
	return out, nil
}
