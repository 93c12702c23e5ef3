package judging_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
	"github.com/fusiontune/fusiontune/tuner/judging/pool"
)

// TestJudgeData reads what the judge commands need from the shipped demo:
// query texts, gold, categories, corpus documents and a pool's pairs, and
// adapts a qrels-file judge to the judge loop.
func TestJudgeData(t *testing.T) {
	ds, err := dataset.Open(experiments.DatasetConfig{}, "", filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	q := ds.Queries[0]
	texts, known := dataset.QueryTexts(ds.Queries)
	if texts[q.ID] != q.Text || !known[q.ID] || len(known) != len(ds.Queries) {
		t.Fatalf("QueryTexts: %q, %v for %s", texts[q.ID], known[q.ID], q.ID)
	}
	if !maps.Equal(ds.Gold()[q.ID], q.Judgments) || ds.Categories()[q.ID] != q.Category {
		t.Fatalf("Gold/Categories of %s: %v, %q", q.ID, ds.Gold()[q.ID], ds.Categories()[q.ID])
	}
	docs, err := ds.JudgeDocs()
	if err != nil || len(docs) == 0 {
		t.Fatalf("JudgeDocs: %d documents, %v", len(docs), err)
	}
	doc := slices.Sorted(maps.Keys(q.Judgments))[0]
	dir := t.TempDir()
	poolFile := filepath.Join(dir, "pool.jsonl")
	line := fmt.Sprintf(`{"dataset":"demo","query":%q,"doc":%q,"priority":1,"trials":1,"best_rank":1}`+"\n", q.ID, doc)
	if err := os.WriteFile(poolFile, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs, err := ds.PoolPairs(poolFile, "demo")
	if err != nil || len(pairs) != 1 || pairs[0].QueryText != q.Text || pairs[0].DocText != docs[doc].Text || pairs[0].DocText == "" {
		t.Fatalf("PoolPairs = %+v, %v", pairs, err)
	}
	var ie *inputerr.Error
	if _, err := ds.PoolPairs(filepath.Join(dir, "missing.jsonl"), "demo"); !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "--pool: ") {
		t.Errorf("PoolPairs of a missing file: %v, want an input error on --pool", err)
	}
	if _, err := ds.PoolPairs(poolFile, "scifact"); !errors.As(err, &ie) {
		t.Errorf("PoolPairs of another dataset: %v, want an input error", err)
	}
	broken := *ds
	broken.Corpus = filepath.Join(dir, "no-corpus.jsonl")
	if _, err := broken.JudgeDocs(); !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "dataset.corpus: ") {
		t.Errorf("JudgeDocs without the corpus file: %v, want an input error on dataset.corpus", err)
	}

	qrels := filepath.Join(dir, "qrels.txt")
	if err := os.WriteFile(qrels, []byte(q.ID+" 0 "+doc+" 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := judge.NewFile(qrels, labels.Rules{Queries: known})
	if err != nil {
		t.Fatal(err)
	}
	ls, err := judging.JudgeWith(f, texts, nil)(context.Background(), []pool.Pair{{Dataset: "demo", Query: q.ID, Doc: doc}, {Dataset: "demo", Query: q.ID, Doc: "unjudged"}})
	if err != nil || len(ls) != 1 || ls[0].Dataset != "demo" || ls[0].Grade != 1 || ls[0].Doc != doc {
		t.Fatalf("JudgeWith(file judge) = %+v, %v", ls, err)
	}
}
