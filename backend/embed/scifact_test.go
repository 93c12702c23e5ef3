package embed_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend/embed"
)

// sharedData returns ../shared/data/<rel> relative to the repository root
// (the directory holding go.mod), skipping the test when it is absent.
func sharedData(tb testing.TB, rel string) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skip("no go.mod above the test directory: cannot locate ../shared/data")
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", "data", rel)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared evaluation data %s is absent: skipping (%v)", p, err)
	}
	return p
}

// scifactCorpus reads SciFact's title + text per document.
func scifactCorpus(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open(sharedData(tb, "scifact/corpus.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var texts []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var d struct{ Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			tb.Fatal(err)
		}
		texts = append(texts, d.Title+"\n"+d.Text)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return texts
}

// TestLSASciFact fits lsa-256 on SciFact's 5,183 documents and logs the
// fit time; it checks shape and unit norms, not speed.
func TestLSASciFact(t *testing.T) {
	if testing.Short() {
		t.Skip("fits lsa-256 on SciFact: skipped with -short")
	}
	texts := scifactCorpus(t)
	e := embed.NewLSA(256, embed.DefaultSeed)
	start := time.Now()
	if err := e.Fit(context.Background(), texts); err != nil {
		t.Fatal(err)
	}
	t.Logf("lsa-256 fit on %d SciFact docs (%d terms): %v", len(texts), e.Vocabulary(), time.Since(start))
	start = time.Now()
	vecs, err := e.EmbedDocuments(context.Background(), nil, texts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("embedding the %d docs: %v", len(texts), time.Since(start))
	for i, v := range vecs {
		if len(v) != 256 {
			t.Fatalf("doc %d: %d dimensions", i, len(v))
		}
		if n := embed.Cosine(v, v); n < 0.999 {
			t.Fatalf("doc %d: norm² %v", i, n)
		}
	}
}

// BenchmarkLSAFitSciFact reports the lsa-256 fit time on SciFact.
func BenchmarkLSAFitSciFact(b *testing.B) {
	texts := scifactCorpus(b)
	for b.Loop() {
		if err := embed.NewLSA(256, embed.DefaultSeed).Fit(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(texts)), "docs")
}
