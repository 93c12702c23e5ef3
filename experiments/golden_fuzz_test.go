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

// checkQueries checks the invariants every successfully parsed query obeys.
func checkQueries(t *testing.T, qs []experiments.Query) {
	t.Helper()
	for _, q := range qs {
		if strings.TrimSpace(q.ID) == "" || strings.TrimSpace(q.Text) == "" {
			t.Fatalf("query with empty id or text accepted: %+v", q)
		}
		checkJudgments(t, q.Judgments)
	}
}

// checkJudgments checks that each judgment has one target and a grade in range.
func checkJudgments(t *testing.T, js []experiments.Judgment) {
	t.Helper()
	for _, j := range js {
		set := 0
		for _, s := range []string{j.DocID, j.Substring, j.Pattern} {
			if s != "" {
				set++
			}
		}
		if set != 1 || j.Grade < 0 || j.Grade > experiments.MaxGrade {
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
		checkQueries(t, gs.Queries)
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
		checkQueries(t, gs.Queries)
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
			checkJudgments(t, []experiments.Judgment{j.Judgment})
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
		checkQueries(t, qs)
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
			checkJudgments(t, []experiments.Judgment{j.Judgment})
		}
	})
}
