package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldPairs are the demo golden set's judged (query, document id) pairs,
// "QUERY DOC".
func goldPairs(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, q := range demoGolden(t).Queries {
		for _, e := range q.Expected {
			if e.Doc != "" {
				out[q.ID+" "+e.Doc] = true
			}
		}
	}
	return out
}

type demoGoldenFile struct {
	Queries []struct {
		ID       string `json:"id"`
		Expected []struct {
			Doc string `json:"doc_id"`
		} `json:"expected_passages"`
	} `json:"queries"`
}

func demoGolden(t *testing.T) demoGoldenFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "experiments", "demo", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g demoGoldenFile
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// goldPool is a pool of the demo golden set's document judgments (n at
// most), for the llm judge to label.
func goldPool(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	for _, q := range demoGolden(t).Queries {
		for _, e := range q.Expected {
			if e.Doc != "" && n > 0 {
				fmt.Fprintf(&b, `{"dataset":"demo","query":%q,"doc":%q,"priority":1,"trials":1,"best_rank":1}`+"\n", q.ID, e.Doc)
				n--
			}
		}
	}
	return b.String()
}

// TestJudgeAudit audits the llm judge against a stand-in server on
// loopback that answers by a fixed rule, replacing each grade with
// another at random with a known chance. Without noise the judge agrees
// with itself exactly; with a chance p, two answers agree with chance
// (1-p)² + p²/3 (0.52 for p = 0.3). The audit appends nothing, and
// --refresh labels the pool again.
func TestJudgeAudit(t *testing.T) {
	for _, tc := range []struct {
		noise    float64
		min, max float64
	}{{0, 1, 1}, {0.3, 0.35, 0.7}} {
		t.Run(fmt.Sprint("noise ", tc.noise), func(t *testing.T) {
			e, srv := newJudgeEnv(t, "")
			srv.Noise, srv.NoiseSeed = tc.noise, 3
			e.write("gold.jsonl", goldPool(t, 80))
			e.mustRun(0, "judge", "run", "--pool", "gold.jsonl", "--judge", "llm")
			before := e.labelCount()
			stdout, _ := e.mustRun(0, "judge", "audit", "--sample", "80", "--format", "json")
			var r struct {
				Self struct {
					N     int     `json:"pairs"`
					Exact float64 `json:"exact"`
				} `json:"self"`
				Gold struct {
					N     int     `json:"pairs"`
					Exact float64 `json:"exact"`
					Kappa float64 `json:"kappa_quadratic"`
				} `json:"gold"`
				ByGrade []struct {
					Grade, Pairs int
					Exact, Mean  float64
				} `json:"by_grade"`
			}
			if err := json.Unmarshal([]byte(stdout), &r); err != nil {
				t.Fatalf("%v: %s", err, stdout)
			}
			if r.Self.N != 80 || r.Gold.N != 80 || r.Self.Exact < tc.min || r.Self.Exact > tc.max {
				t.Errorf("self-agreement %.4f over %d pairs (gold %d), want 80 pairs in [%g, %g]", r.Self.Exact, r.Self.N, r.Gold.N, tc.min, tc.max)
			}
			t.Logf("noise %g: self-agreement exact %.4f; gold exact %.4f kappa %.4f; by grade %+v", tc.noise, r.Self.Exact, r.Gold.Exact, r.Gold.Kappa, r.ByGrade)
			if after := e.labelCount(); after != before {
				t.Errorf("the audit appended %d labels", after-before)
			}
			text, _ := e.mustRun(0, "judge", "audit", "--sample", "5")
			if !strings.Contains(text, "self-agreement (its stored labels vs its answers now): 5 pairs, exact agreement ") {
				t.Errorf("text: %s", text)
			}
			calls := srv.Requests()
			out, _ := e.mustRun(0, "judge", "run", "--pool", "gold.jsonl", "--judge", "llm", "--refresh")
			if !strings.Contains(out, "appended 80 labels") || srv.Requests() == calls {
				t.Errorf("--refresh: %s (%d calls before, %d after)", out, calls, srv.Requests())
			}
		})
	}
}
