package judge

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// File is the judge that reads its labels from a qrels file (TREC
// `qid iter docno rel`, or BEIR's query-id/corpus-id/score tsv): a pair
// the file judges gets its grade (negative grades read as 0), a pair it
// does not is left out.
type File struct {
	// Dataset is the labels' dataset.
	Dataset string
	// Path is the qrels file; Name is "file:" and its base name.
	Path  string
	qrels trec.Qrels
	// Now gives the labels' time (time.Now when nil).
	Now func() time.Time
}

var _ Judge = (*File)(nil)

// NewFile reads the qrels file at path for the dataset of r. A query id
// the golden set does not know (r.Queries; nil: no check) is an error
// naming them all: the file is for another golden set. So is any grade
// that breaks r (a document the corpus lacks, a grade above the scale):
// the file judge appends only what an import of the file would.
func NewFile(path string, r labels.Rules) (*File, error) {
	dataset, queries := r.Dataset, r.Queries
	q, err := trec.ReadQrelsFile(path)
	if err != nil {
		return nil, fmt.Errorf("file judge: %w", err)
	}
	if queries != nil {
		var unknown []string
		for _, qid := range slices.Sorted(maps.Keys(q)) {
			if !queries[qid] {
				unknown = append(unknown, fmt.Sprintf("%q", qid))
			}
		}
		if n := len(unknown); n > 0 {
			more := ""
			if len(unknown) > 20 {
				unknown, more = unknown[:20], fmt.Sprintf(" (and %d more)", len(unknown)-20)
			}
			return nil, fmt.Errorf("file judge %s: %w: %d query ids are not in the golden set of dataset %q: %s%s",
				path, ErrUnknown, n, dataset, strings.Join(unknown, ", "), more)
		}
	}
	f := &File{Dataset: dataset, Path: path, qrels: q}
	if err := r.Check(labels.FromQrels(q, labels.Label{Dataset: dataset, Judge: f.Name()})); err != nil {
		return nil, fmt.Errorf("file judge %s: %w", path, err)
	}
	return f, nil
}

// Name returns "file:<basename>".
func (f *File) Name() string { return "file:" + filepath.Base(f.Path) }

// Judge returns a label for every pair the file judges, in pair order.
func (f *File) Judge(ctx context.Context, pairs []Pair) ([]labels.Label, error) {
	now := time.Now
	if f.Now != nil {
		now = f.Now
	}
	t := now().UTC()
	var out []labels.Label
	for _, p := range pairs {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		g, ok := f.qrels[p.Query][p.Doc]
		if !ok {
			continue
		}
		out = append(out, labels.Label{Dataset: f.Dataset, Query: p.Query, Doc: p.Doc, Grade: max(g, 0),
			Judge: f.Name(), Source: labels.SourceFile, Time: t})
	}
	return out, nil
}
