package judging

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// Export renders the pool's pairs for people to label (judge.ExportPairs
// in format judge.FormatTSV or judge.FormatJSONL) and counts them.
func Export(e *Env, pool, format string) (data []byte, pairs int, err error) {
	ps, err := e.PoolPairs(pool)
	if err != nil {
		return nil, 0, err
	}
	var b bytes.Buffer
	if err := judge.ExportPairs(&b, e.ID, ps, format); err != nil {
		return nil, 0, err
	}
	return b.Bytes(), len(ps), nil
}

// ImportRequest is a file of labelled pairs to append to the store.
type ImportRequest struct {
	// Path names the file and Data is its content (judge.ImportKind: a
	// filled export, native labels JSONL, or qrels).
	Path string
	Data []byte
	// Judge names who labelled a filled export or a qrels file (native
	// labels carry their own: then Judge must be ""); Source is a qrels
	// file's labels' source.
	Judge, Source string
	// Time stamps the labels of a filled export or qrels file.
	Time time.Time
}

// ImportResult is what Import appended.
type ImportResult struct {
	// Dataset is the dataset's id, Path the file, Store the label store's
	// redacted location.
	Dataset, Path, Store string
	// Labels counts the labels appended; Skipped a filled export's rows
	// without a grade.
	Labels, Skipped int
}

// Import checks every label of the file (Env.Rules: the dataset's, a
// query of the golden set, a document of its corpus, a grade on its
// scale, one grade per pair) and appends them all to the store, or
// on any problem nothing, naming every problem (*inputerr.Error).
func Import(ctx context.Context, e *Env, r ImportRequest) (*ImportResult, error) {
	kind := judge.ImportKind(r.Data)
	if kind == judge.KindLabels && r.Judge != "" {
		return nil, inputerr.Wrap(fmt.Errorf("judge import: %s holds native labels, each with its judge: drop --judge", r.Path))
	}
	if kind != judge.KindLabels && strings.TrimSpace(r.Judge) == "" {
		return nil, inputerr.Wrap(fmt.Errorf("judge import: --judge NAME is required for %s (who labelled it)", r.Path))
	}
	im, err := judge.Import(r.Data, r.Path, judge.ImportSpec{
		Rules: e.Rules(), Judge: r.Judge, Source: r.Source, Time: r.Time,
	})
	if err != nil {
		return nil, inputerr.Wrap(err)
	}
	st, err := e.OpenStore(ctx, true)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if err := st.Append(ctx, im.Labels); err != nil {
		return nil, inputerr.Wrap(err)
	}
	return &ImportResult{Dataset: e.ID, Path: r.Path, Store: st.Location.Redacted, Labels: len(im.Labels), Skipped: im.Skipped}, nil
}

// WriteText writes what was appended, and the rows skipped.
func (r *ImportResult) WriteText(w io.Writer) {
	fmt.Fprintf(w, "appended %d labels of dataset %q from %s to %s", r.Labels, r.Dataset, r.Path, r.Store)
	if r.Skipped > 0 {
		fmt.Fprintf(w, " (%d rows without a grade skipped)", r.Skipped)
	}
	fmt.Fprintln(w)
}

// LabelsRequest says which of the store's labels to write.
type LabelsRequest struct {
	// Format is labels.FormatJSONL or labels.FormatQrels.
	Format string
	// Judge keeps only this judge's labels ("": every judge).
	Judge string
	// All writes every label ever appended (jsonl only), not each
	// judge's latest.
	All bool
}

// LabelsResult is the labels Labels rendered.
type LabelsResult struct {
	// Data is the rendered labels; Count how many.
	Data  []byte
	Count int
	// Dataset is the dataset's id and Store the store's redacted location.
	Dataset, Store string
}

// Note says how many labels of which dataset came from where.
func (r *LabelsResult) Note() string {
	return fmt.Sprintf("%d labels of dataset %q in %s", r.Count, r.Dataset, r.Store)
}

// Labels renders the store's labels of the dataset (labels.Write): the
// latest of each judge per pair, or with All (jsonl only: an input error
// otherwise) every label.
func Labels(ctx context.Context, e *Env, r LabelsRequest) (*LabelsResult, error) {
	if r.All && r.Format != labels.FormatJSONL {
		return nil, inputerr.Wrap(errors.New("judge labels: --all needs --format jsonl"))
	}
	st, err := e.OpenStore(ctx, true)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	ls, err := st.Select(ctx, e.ID, r.All, r.Judge)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := labels.Write(&b, ls, r.Format); err != nil {
		return nil, err
	}
	return &LabelsResult{Data: b.Bytes(), Count: len(ls), Dataset: e.ID, Store: st.Location.Redacted}, nil
}

// Agree compares the LLM judges' latest labels (or the judge name's, any
// source) with the reference: the golden set's judgments and people's
// labels (judge.Compare); byCategory adds a row per query category. No
// labels to compare is an error.
func Agree(ctx context.Context, e *Env, name string, byCategory bool) (judge.Comparison, error) {
	st, err := e.OpenStore(ctx, true)
	if err != nil {
		return judge.Comparison{}, err
	}
	defer st.Close()
	ls, err := st.Latest(ctx, e.ID)
	if err != nil {
		return judge.Comparison{}, err
	}
	c := judge.Compare(ls, e.Data.Gold(), e.Data.Categories(), name, e.maxGrade(), byCategory)
	if len(c.Reports) == 0 {
		what := "llm labels"
		if name != "" {
			what = fmt.Sprintf("labels by %q", name)
		}
		return c, fmt.Errorf("judge agree: no %s of dataset %q in %s (run 'tune judge run --judge llm' first)", what, e.ID, st.Location.Redacted)
	}
	return c, nil
}
