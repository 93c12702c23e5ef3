package lancedb_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/backend/lancedb"
	"github.com/fusiontune/fusiontune/backend/lancedb/lancedbtest"
)

const demoCorpus = "../../experiments/demo/corpus.jsonl"

// demoQueries returns the demo golden set's query texts.
func demoQueries(t *testing.T) []string {
	t.Helper()
	out := lancedbtest.Queries(t, "../../experiments/demo/golden.json")
	if len(out) < 20 {
		t.Fatalf("demo golden set: %d queries, want at least 20", len(out))
	}
	return out
}

// replayed fuses a response's legs as the tuner's replay does: the
// prepared lists under the trial's settings (fusion.FormulaLanceDB),
// each cut at the settings' depth.
func replayed(resp backend.SearchResponse, s fusion.Settings, k int) []string {
	var f fusion.Fuser
	pl := fusion.Prepare(resp.Candidates)
	docs := pl.DocIDs(false)
	var out []string
	for _, r := range f.HitsInto(nil, pl, s, k) {
		out = append(out, docs[r.Unit])
	}
	return out
}

func docIDs(hits []backend.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.DocID
	}
	return out
}

// tied counts the hits whose score equals the next one's.
func tied(hits []backend.Hit) int {
	n := 0
	for i := 1; i < len(hits); i++ {
		if hits[i].Score == hits[i-1].Score {
			n++
		}
	}
	return n
}

// checkReplay collects every query's legs at each trial's limit, as the
// tuner does (one collection per limit, fusion.k replayed), and checks
// that LanceDB's own hybrid answer, live at the trial's k and limit,
// equals the replayed ranking: documents and float32 scores, ties in
// LanceDB's order. It returns the number of tied neighbours seen in the
// live answers.
func checkReplay(t *testing.T, b backend.Backend, queries []string, trials []lancedb.Trial) int {
	t.Helper()
	ctx := context.Background()
	ties := 0
	for _, q := range queries {
		for _, tr := range trials {
			col, err := b.Search(ctx, backend.SearchRequest{Query: q, K: 1, Explain: true, Fusion: &fusion.Params{Depth: tr.Limit}})
			if err != nil {
				t.Fatal(err)
			}
			if len(col.Candidates["dense"])+len(col.Candidates["bm25"]) == 0 {
				t.Fatalf("query %q: both legs are empty", q)
			}
			live, err := b.Search(ctx, backend.SearchRequest{Query: q, K: tr.Limit, Fusion: &fusion.Params{K: tr.K, Depth: tr.Limit}})
			if err != nil {
				t.Fatal(err)
			}
			ties += tied(live.Hits)
			got := replayed(col, tr.Settings(), tr.Limit)
			if want := docIDs(live.Hits); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("query %q, k %g, limit %d:\nreplay %v\nlive   %v", q, tr.K, tr.Limit, got, want)
				continue
			}
			r := fusion.LanceDBRRF(col.Candidates["dense"], col.Candidates["bm25"], float32(tr.K), tr.Limit)
			for i, h := range live.Hits {
				if r[i].DocID != h.DocID || float32(r[i].Score) != float32(h.Score) {
					t.Errorf("query %q, k %g, limit %d, rank %d: LanceDBRRF %s %v, LanceDB %s %v", q, tr.K, tr.Limit, i+1, r[i].DocID, r[i].Score, h.DocID, h.Score)
					break
				}
			}
		}
	}
	return ties
}

var trials = []lancedb.Trial{{K: 60, Limit: 10}, {K: 1, Limit: 30}, {K: 20, Limit: 50}, {K: 60, Limit: 100}}

// TestSandbox builds a sandbox table of the demo corpus (lsa-64 vectors
// the kind computes) and checks that LanceDB's own hybrid answer equals
// the replayed ranking for 20 queries under four k/limit trials, ties
// included.
func TestSandbox(t *testing.T) {
	dir := lancedbtest.SidecarDir(t)
	f, err := lancedb.New(lancedb.Options{Sidecar: dir, Model: "lsa-64", Corpus: corpus.Config{Path: demoCorpus}})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	b, err := f.Open(t.TempDir(), &log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	})
	ctx := context.Background()
	if err := b.Apply(ctx, map[string]any{backend.ParamFusionK: 60.0, backend.ParamLimit: 100.0}); err != nil {
		t.Fatal(err)
	}
	if err := b.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	ties := checkReplay(t, b, demoQueries(t)[:20], trials)
	if ties == 0 {
		t.Errorf("no tied scores in any answer: the tie rule is not exercised")
	}
	// No word of this query is in the corpus: its lsa vector is zero, the
	// vector leg (cosine) finds nothing and LanceDB fails the hybrid
	// query; the kind answers with the full-text leg fused alone.
	const odd = "how to bleeed a radaitor"
	checkReplay(t, b, []string{odd}, trials[:1])
	if !strings.Contains(log.String(), "vector leg finds nothing") {
		t.Errorf("the empty-leg answer was not logged:\n%s", log.String())
	}
	t.Logf("%d tied neighbours in the live answers\n%s", ties, log.String())
}

// TestAttach builds a LanceDB table with vectors the kind did not compute
// (hash-48 vectors read from a file), column names of its own and an FTS
// index, attaches to it, checks that the hybrid answers equal the replay
// for 20 queries, that a trial cannot change the embedder, that promotion
// verifies the production config and that the dataset is unchanged.
func TestAttach(t *testing.T) {
	dir := lancedbtest.SidecarDir(t)
	ctx := context.Background()
	work := t.TempDir()
	queries := demoQueries(t)[:20]

	// The user's table and vectors: a file of document and query vectors.
	vectors := filepath.Join(work, "vectors.jsonl")
	db := filepath.Join(work, "userdb")
	lancedbtest.UserTable(t, dir, demoCorpus, lancedb.Table{URI: db, Name: "kb", ID: "doc", Text: "body", Vector: "emb"}, queries, vectors)
	before := lancedbtest.Tree(t, db)

	o := lancedb.Options{Sidecar: dir, URI: db, Table: "kb", IDColumn: "doc", TextColumn: "body", VectorColumn: "emb",
		Distance: "cosine", Model: "file:" + vectors}
	f, err := lancedb.New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Check(map[string]any{backend.ParamDenseModel: "lsa-64"}); err == nil || !strings.Contains(err.Error(), "dense.model") {
		t.Errorf("a trial's dense.model in attach mode: got %v, want an error naming dense.model", err)
	}
	b, err := f.Open(filepath.Join(work, "run"), nil)
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]any{backend.ParamFusionK: 10.0, backend.ParamLimit: 40.0}
	if err := b.Apply(ctx, params); err != nil {
		t.Fatal(err)
	}
	checkReplay(t, b, queries, trials)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	// Promotion: the production config is the trial's recorded config.
	config := filepath.Join(work, "lancedb.json")
	if err := os.WriteFile(config, []byte(f.Describe(params)), 0o644); err != nil {
		t.Fatal(err)
	}
	checked := 0
	run, err := f.Verify(config, t.TempDir(), nil, func(ctx context.Context, s backend.Searcher) error {
		resp, err := s.Search(ctx, backend.SearchRequest{Query: queries[0], K: 100})
		checked = len(resp.Hits)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := run(ctx); err != nil {
		t.Fatal(err)
	}
	if checked != 40 {
		t.Errorf("the promoted config answered %d hits, want its limit 40", checked)
	}
	if after := lancedbtest.Tree(t, db); after != before {
		t.Errorf("the attached dataset changed:\nbefore %s\nafter  %s", before, after)
	}
}
