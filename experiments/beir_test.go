package experiments_test

import (
	"bufio"
	"encoding/json"
	"github.com/fusiontune/fusiontune/experiments/shareddata"
	"os"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

// sharedData is shareddata.Path: ../shared/data/<name>, or a skip.
func sharedData(tb testing.TB, name string) string { return shareddata.Path(tb, name) }

// readBEIRCorpus reads corpus.jsonl into Documents (the text field only).
func readBEIRCorpus(tb testing.TB, path string) []experiments.Document {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var docs []experiments.Document
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var d struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			tb.Fatal(err)
		}
		docs = append(docs, experiments.Document{ID: d.ID, Text: d.Text})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return docs
}

func TestLoadSciFact(t *testing.T) {
	dir := sharedData(t, "scifact")
	gs, err := experiments.LoadGoldenSet(dir, experiments.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(gs.Queries) != 300 || gs.NumJudgments() != 339 {
		t.Errorf("%d queries, %d judgments; want 300 and 339", len(gs.Queries), gs.NumJudgments())
	}
	for _, q := range gs.Queries {
		for _, j := range q.Judgments {
			if j.Grade != 1 || j.DocID == "" {
				t.Fatalf("query %s: judgment %+v, want a doc id with grade 1", q.ID, j)
			}
		}
	}
	again, err := experiments.LoadGoldenSet(dir, experiments.LoadOptions{Format: experiments.FormatBEIR, Split: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(gs.Hash) != 64 || again.Hash != gs.Hash {
		t.Errorf("hashes %q and %q: want one stable sha256", gs.Hash, again.Hash)
	}
	r, err := gs.Resolve(readBEIRCorpus(t, experiments.BEIRCorpusPath(dir)))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("every judged document is in the corpus, yet: %v", r.Warnings)
	}
}

// sciFactExcerpts rewrites every SciFact judgment as a 15-word excerpt from
// the middle of the judged document, to exercise substring resolution at
// corpus scale.
func sciFactExcerpts(tb testing.TB) (*experiments.GoldenSet, []experiments.Document) {
	dir := sharedData(tb, "scifact")
	gs, err := experiments.LoadGoldenSet(dir, experiments.LoadOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	docs := readBEIRCorpus(tb, experiments.BEIRCorpusPath(dir))
	text := map[string]string{}
	for _, d := range docs {
		text[d.ID] = d.Text
	}
	for i := range gs.Queries {
		for k, j := range gs.Queries[i].Judgments {
			words := strings.Fields(text[j.DocID])
			mid := max(0, len(words)/2-7)
			gs.Queries[i].Judgments[k] = experiments.Judgment{Substring: strings.Join(words[mid:min(mid+15, len(words))], " "), Grade: 3}
		}
	}
	return gs, docs
}

func TestResolveSciFactExcerpts(t *testing.T) {
	gs, docs := sciFactExcerpts(t)
	qrels, err := experiments.LoadGoldenSet(sharedData(t, "scifact"), experiments.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := gs.Resolve(docs)
	if err != nil {
		t.Fatal(err)
	}
	extra := 0
	for _, q := range qrels.Queries {
		got := r.Query(q.ID).Judgments
		for _, j := range q.Judgments {
			if got[j.DocID] != 3 {
				t.Errorf("query %s: excerpt of %s did not judge it (got %v)", q.ID, j.DocID, got)
			}
		}
		extra += len(got) - len(q.Judgments)
	}
	if extra != 0 || len(r.Warnings) != 0 {
		t.Logf("%d extra documents judged by excerpts found in several documents; warnings: %v", extra, r.Warnings)
	}
}

func BenchmarkResolveSciFact(b *testing.B) {
	gs, docs := sciFactExcerpts(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := gs.Resolve(docs); err != nil {
			b.Fatal(err)
		}
	}
}
