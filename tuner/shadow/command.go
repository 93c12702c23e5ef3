package shadow

import (
	"context"
	"fmt"
	"io"

	"github.com/fusiontune/fusiontune/internal/inputerr"
)

// DefaultWorst is how many most-changed queries the text report lists.
const DefaultWorst = 5

// ShadowRequest runs `tune shadow`: it reads r's inputs (Request.Config),
// says on log what it read and which two sides answer, compares them
// (Shadow) and writes the report to w as format, json or text (with the
// DefaultWorst most-changed queries). A failed comparison is the user's
// input (inputerr.Error): its logs and configs are what it read.
func ShadowRequest(ctx context.Context, r Request, format string, w, log io.Writer) error {
	c, err := r.Config(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "shadow: %d searches read (%d bad lines skipped); answering %s and %s\n", len(c.Log.Searches), c.Log.Skipped, c.Control.Name, c.Treatment.Name)
	res, err := Shadow(ctx, c)
	if err != nil {
		return inputerr.Wrap(err)
	}
	return res.Render(w, format)
}
