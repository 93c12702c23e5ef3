package harvest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
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

// TestAppendLabelsSkipsUnchanged: a second harvest of the same log
// appends nothing; a changed grade, or a human label in between, does not
// stop a new implicit label.
func TestAppendLabelsSkipsUnchanged(t *testing.T) {
	ctx := t.Context()
	url := filepath.Join(t.TempDir(), "labels.db")
	js := []Judgment{{Query: "h-1", Doc: "d1", Grade: 2, COEC: 2, Clicks: 2, Expected: 1, Impressions: 3, Confidence: 0.5},
		{Query: "h-1", Doc: "d2", Grade: 0, COEC: 0, Clicks: 0, Expected: 1.5, Impressions: 3, Confidence: 0.6}}
	for i, tc := range []struct {
		js             []Judgment
		added, skipped int
	}{
		{js, 2, 0},
		{js, 0, 2},
		{[]Judgment{js[0], {Query: "h-1", Doc: "d2", Grade: 1, COEC: 1, Clicks: 1, Expected: 1.5, Impressions: 3, Confidence: 0.6}}, 1, 1},
	} {
		byGrade, skipped, err := AppendLabels(ctx, url, tc.js, "logs", t0)
		added := 0
		for _, n := range byGrade {
			added += n
		}
		if err != nil || added != tc.added || skipped != tc.skipped {
			t.Errorf("harvest %d: added %d skipped %d (%v), want %d and %d", i+1, added, skipped, err, tc.added, tc.skipped)
		}
	}
	st, err := labels.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h, err := st.History(ctx, "logs")
	if err != nil || len(h) != 3 {
		t.Errorf("history %d labels (%v), want 3", len(h), err)
	}
}
