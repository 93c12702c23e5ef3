package tuner

import (
	"context"
	"errors"
	"fmt"
	"github.com/fusiontune/fusiontune/tuner/verdict"
	"io"
)

// MaxFailuresShown bounds QualityOutput.Failures (tune check-quality
// --failures).
const MaxFailuresShown = 1000

// QualityOutput is what `tune check-quality` prints and writes besides
// the run: the summary's format on stdout, how many failing queries it
// lists (0: none; quality.json keeps them all), and the file the run's
// baseline is exported to ("" none).
type QualityOutput struct {
	Format         string
	Failures       int
	ExportBaseline string
}

// CheckAndReport runs the quality check c (CheckQuality), writes its
// summary to w in o.Format and, when the check ran, exports the baseline
// (noted on log). The error is the run's, then a failed trial's, then the
// failed gates' (GatesFailed).
func CheckAndReport(ctx context.Context, c QualityConfig, o QualityOutput, w, log io.Writer) error {
	if c.FailuresShown = o.Failures; o.Failures == 0 {
		c.FailuresShown = -1
	}
	q, out, runErr := CheckQuality(ctx, c)
	if q == nil {
		if out == nil || runErr != nil {
			return runErr
		}
		return errors.New("the check's only trial failed")
	}
	if o.Failures == 0 {
		q.Failures = nil
	}
	if err := q.Render(w, o.Format); err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	if o.ExportBaseline != "" {
		if err := verdict.ExportBaseline(out.Run, o.ExportBaseline); err != nil {
			return err
		}
		fmt.Fprintf(log, "baseline written to %s\n", o.ExportBaseline)
	}
	return verdict.GatesFailed(q)
}
