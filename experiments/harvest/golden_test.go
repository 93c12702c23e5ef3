package harvest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/experiments/labels"
)

// TestGoldenLoads: the harvested golden set loads as a native golden set
// whose queries await judgments; written over an existing set, it keeps
// every existing query byte for byte and adds only new ids.
func TestGoldenLoads(t *testing.T) {
	qs := []Query{
		{ID: QueryID("return item"), Text: "Return item", Norm: "return item", Category: "howto", Count: 4, First: t0, Last: t0.Add(time.Hour)},
		{ID: QueryID("shipping"), Text: "shipping", Norm: "shipping", Count: 1, First: t0, Last: t0},
	}
	data, added, err := Golden(nil, qs)
	if err != nil || added != 2 {
		t.Fatalf("added %d: %v", added, err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "golden.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	gs, err := experiments.LoadGoldenSet(path, experiments.LoadOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if len(gs.Queries) != 2 || !gs.Queries[0].Awaiting || gs.Queries[0].Category != "howto" || fmt.Sprint(gs.Queries[0].Meta["harvest"].(map[string]any)["count"]) != "4" {
		t.Errorf("loaded %+v", gs.Queries)
	}
	if len(gs.Warnings) != 1 || !strings.Contains(gs.Warnings[0].Error(), "2 queries await judgments") {
		t.Errorf("warnings %v", gs.Warnings)
	}

	existing := []byte(`{"queries": [{"id": "q1", "query": "hand written", "notes": "kept as is", "expected_passages": [{"doc_id": "d1", "relevance": 3}]},
 {"id": "` + qs[1].ID + `", "query": "shipping (edited)", "awaiting_judgments": true}]}`)
	more := append(qs, Query{ID: QueryID("new one"), Text: "new one", Norm: "new one", Count: 2, First: t0, Last: t0})
	out, added, err := Golden(existing, more)
	if err != nil || added != 2 {
		t.Fatalf("update: added %d: %v", added, err)
	}
	for _, keep := range []string{`{"id": "q1", "query": "hand written", "notes": "kept as is", "expected_passages": [{"doc_id": "d1", "relevance": 3}]}`, `"shipping (edited)"`, `"new one"`, `"Return item"`} {
		if !strings.Contains(string(out), keep) {
			t.Errorf("update lacks %s:\n%s", keep, out)
		}
	}
	if strings.Count(string(out), qs[1].ID) != 1 {
		t.Errorf("an existing id was added again:\n%s", out)
	}
	if _, _, err := Golden([]byte(`{"categories": ["a"], "queries": []}`), qs); err == nil {
		t.Error("a set with more than queries was rewritten")
	}
}

func TestLabels(t *testing.T) {
	ls := Labels([]Judgment{{Query: "h-1", Doc: "d1", Grade: 2, COEC: 4.0 / 3, Clicks: 1, Expected: 0.75, Impressions: 2, Confidence: 0.75 / 1.75}}, "logs", t0)
	l := ls[0]
	if l.Source != labels.SourceImplicit || l.Judge != JudgeCOEC || l.Dataset != "logs" || !l.Time.Equal(t0) || l.Grade != 2 ||
		l.Rationale != "COEC 1.333 (clicks 1, expected 0.750, impressions 2)" || l.Confidence != 0.75/1.75 {
		t.Errorf("label %+v", l)
	}
}
