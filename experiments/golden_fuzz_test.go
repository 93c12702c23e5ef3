package experiments_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

// addSeeds adds the fixtures matching pattern as fuzz seeds.
func addSeeds(f *testing.F, patterns ...string) {
	for _, p := range patterns {
		paths, _ := filepath.Glob(filepath.Join("testdata/golden", p))
		for _, path := range paths {
			if data, err := os.ReadFile(path); err == nil {
				f.Add(data)
			}
		}
	}
}

// checkQueries checks the invariants every successfully parsed query obeys;
// grades lie in 0..maxGrade (any integer when maxGrade < 0: topics carry
// none, and raw judgments are checked against a scale only when a golden
// set is loaded).
func checkQueries(t *testing.T, qs []experiments.Query, maxGrade int) {
	t.Helper()
	for _, q := range qs {
		if strings.TrimSpace(q.ID) == "" || strings.TrimSpace(q.Text) == "" {
			t.Fatalf("query with empty id or text accepted: %+v", q)
		}
		checkJudgments(t, q.Judgments, maxGrade)
	}
}

// checkJudgments checks that each judgment has one target and a grade in
// 0..maxGrade (unchecked when maxGrade < 0).
func checkJudgments(t *testing.T, js []experiments.Judgment, maxGrade int) {
	t.Helper()
	for _, j := range js {
		set := 0
		for _, s := range []string{j.DocID, j.Substring, j.Pattern} {
			if s != "" {
				set++
			}
		}
		if set != 1 || (maxGrade >= 0 && (j.Grade < 0 || j.Grade > maxGrade)) {
			t.Fatalf("invalid judgment accepted: %+v", j)
		}
	}
}

// checkErr checks that a parse failure is a non-empty Problems list.
func checkErr(t *testing.T, err error) {
	t.Helper()
	var ps experiments.Problems
	if !errors.As(err, &ps) || len(ps) == 0 {
		t.Fatalf("error is not a non-empty Problems: %v", err)
	}
	for _, p := range ps {
		if p.Msg == "" {
			t.Fatalf("problem without a message: %+v", p)
		}
	}
}

// checkScale checks the thresholds of a loaded set's scale are ordered.
func checkScale(t *testing.T, s experiments.Scale) {
	t.Helper()
	if !(1 <= s.Relevant && s.Relevant <= s.Strong && s.Strong <= s.Exact && s.Exact <= s.Max && s.Max <= experiments.MaxSupportedGrade) {
		t.Fatalf("invalid scale: %+v", s)
	}
}

func FuzzParseGoldenSetJSON(f *testing.F) {
	addSeeds(f, "*.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		gs, err := experiments.ParseGoldenSet("g.json", data)
		if err != nil {
			checkErr(t, err)
			return
		}
		if !json.Valid(bytes.TrimPrefix(data, []byte("\ufeff"))) { // a leading byte-order mark is allowed
			t.Fatalf("invalid JSON accepted: %q", data)
		}
		checkScale(t, gs.Scale)
		checkQueries(t, gs.Queries, gs.Scale.Max)
	})
}

func FuzzParseGoldenSetYAML(f *testing.F) {
	addSeeds(f, "*.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		gs, err := experiments.ParseGoldenSet("g.yaml", data)
		if err != nil {
			checkErr(t, err)
			return
		}
		checkScale(t, gs.Scale)
		checkQueries(t, gs.Queries, gs.Scale.Max)
	})
}

func FuzzParseJudgments(f *testing.F) {
	addSeeds(f, "*.judgments.jsonl", "*.qrels")
	f.Fuzz(func(t *testing.T, data []byte) {
		js, err := experiments.ParseJudgments("j.jsonl", data)
		if err != nil {
			checkErr(t, err)
			return
		}
		for _, j := range js {
			if strings.TrimSpace(j.QueryID) == "" {
				t.Fatalf("judgment without a query id: %+v", j)
			}
			checkJudgments(t, []experiments.Judgment{j.Judgment}, -1)
		}
	})
}

func FuzzParseTopics(f *testing.F) {
	addSeeds(f, "topics.*.tsv", "topics.*.jsonl", "*/queries.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		qs, err := experiments.ParseTopics("topics", data)
		if err != nil {
			checkErr(t, err)
			return
		}
		checkQueries(t, qs, -1)
	})
}

func FuzzParseBEIRQrels(f *testing.F) {
	addSeeds(f, "*/qrels/*.tsv")
	f.Fuzz(func(t *testing.T, data []byte) {
		js, err := experiments.ParseBEIRQrels("test.tsv", data)
		if err != nil {
			checkErr(t, err)
			return
		}
		seen := map[[2]string]bool{}
		for _, j := range js {
			k := [2]string{j.QueryID, j.DocID}
			if seen[k] {
				t.Fatalf("document judged twice accepted: %v", k)
			}
			seen[k] = true
			checkJudgments(t, []experiments.Judgment{j.Judgment}, -1)
		}
	})
}

// FuzzLoadBEIR loads a BEIR folder built from arbitrary queries.jsonl and
// qrels/test.tsv contents: it is refused with problems, or every query it
// keeps has a usable id (no control character, no surrounding space), a
// text and valid judgments.
func FuzzLoadBEIR(f *testing.F) {
	for _, dir := range []string{"beir.good", "beir.bad", "beir-id-space.bad", "beir-score-sign.bad", "not-utf8-beir.bad"} {
		q, _ := os.ReadFile(filepath.Join("testdata/golden", dir, "queries.jsonl"))
		r, _ := os.ReadFile(filepath.Join("testdata/golden", dir, "qrels", "test.tsv"))
		f.Add(q, r)
	}
	f.Fuzz(func(t *testing.T, queries, qrels []byte) {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "qrels"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "queries.jsonl"), queries, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "qrels", "test.tsv"), qrels, 0o644); err != nil {
			t.Fatal(err)
		}
		gs, err := experiments.LoadGoldenSet(dir, experiments.LoadOptions{Format: experiments.FormatBEIR})
		if err != nil {
			checkErr(t, err)
			return
		}
		checkScale(t, gs.Scale)
		checkQueries(t, gs.Queries, gs.Scale.Max)
		for _, q := range gs.Queries {
			if q.ID != strings.TrimSpace(q.ID) || strings.ContainsFunc(q.ID, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Fatalf("unusable query id %q accepted", q.ID)
			}
		}
	})
}
