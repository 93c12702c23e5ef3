package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBookChapterSweep: a golden set in the book-and-chapter format
// (experiments/testdata/des058: book_slug, chapter_number,
// retrieval_intent, notes) sweeps on a corpus whose documents carry their
// book and chapter: the one warning lists the fields kept as metadata,
// and the sentence both books print is judged, for each query, only in
// the book and chapter it names — as the exported qrels, which are what
// the sweep scored, show.
func TestBookChapterSweep(t *testing.T) {
	books, err := filepath.Abs("../../experiments/testdata/des058")
	if err != nil {
		t.Fatal(err)
	}
	e := newSweepEnv(t, "runs_dir: runs\ndataset:\n  path: "+filepath.Join(books, "golden.json")+"\n  corpus: "+filepath.Join(books, "corpus.jsonl")+"\n")
	e.write("exp.yaml", "baseline:\n  params: {fusion.method: rrf, fusion.k: 60}\ngrid:\n  fusion.k: [20]\n")
	stdout, stderr, code := e.run("check", "exp.yaml")
	if code != 0 {
		t.Fatalf("check: exit %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, stderr, code = e.run("--experiments", "exp.yaml")
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if n := strings.Count(stderr, "warning: "); n != 1 || !strings.Contains(stderr, "warning: "+filepath.Join(books, "golden.json")+": query fields kept as metadata, not interpreted: retrieval_intent (9 queries)\n") {
		t.Errorf("want one warning, of the metadata kept:\n%s", stderr)
	}
	mustContain(t, "the sweep's log", stderr, "9 queries (golden set ")
	e.mustRun(0, "export", "--out", "export", "--trial", "latest")
	qrels, err := os.ReadFile(filepath.Join(e.dir, "export", "qrels.txt"))
	if err != nil {
		t.Fatal(err)
	}
	judged := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(qrels)), "\n") {
		f := strings.Fields(line)
		judged[f[0]] = append(judged[f[0]], f[2]+"="+f[3])
	}
	for q, want := range map[string]string{
		"sd-record-keeping":   "sourdough-01-2=3",
		"bk-inspection-notes": "beekeeping-02-1=3",
		"sd-starter-feed":     "sourdough-01-1=3 sourdough-01-2=2",
	} {
		if got := strings.Join(judged[q], " "); got != want {
			t.Errorf("%s judged %q, want %q", q, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, "export", "run.trec")); err != nil {
		t.Errorf("the trial's ranking: %v", err)
	}
}
