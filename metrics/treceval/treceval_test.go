package treceval_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/metrics/treceval"
)

// A query with judged d1 (2), d2 (0), d3 (1), d5 (1), d6 (-1, pooled but
// unjudged); the run ranks, by score, d4 d3 d2 d1 d6 (d4 absent from qrels).
// At relevance level 1: R = 3 (d1, d3, d5); grades by rank: -,1,0,2,.
var (
	smallQrels = trec.Qrels{"q": {"d1": 2, "d2": 0, "d3": 1, "d5": 1, "d6": -1}}
	smallRun   = trec.Run{Tag: "t", Queries: map[string][]trec.Result{"q": {
		{DocNo: "d1", Score: 2}, {DocNo: "d2", Score: 3}, {DocNo: "d3", Score: 4},
		{DocNo: "d4", Score: 5}, {DocNo: "d6", Score: 1},
	}}}
)

func TestEvaluateHandComputed(t *testing.T) {
	tests := []struct {
		measure string
		level   int
		want    string // the "all" line value
	}{
		{"num_ret", 1, "5"},
		{"num_rel", 1, "3"},
		{"num_rel_ret", 1, "2"},
		// relevant at ranks 2 and 4: (1/2 + 2/4) / 3 = 0.3333
		{"map", 1, "0.3333"},
		// top R=3: d4 d3 d2 -> 1 relevant / 3
		{"Rprec", 1, "0.3333"},
		{"recip_rank", 1, "0.5000"},
		// d3 has 0 non-relevant above: 1; d1 has 1 (d2) above:
		// 1 - min(1,3)/min(1 judged nonrel,3) = 0 -> (1+0)/3
		{"bpref", 1, "0.3333"},
		{"P.2", 1, "0.5000"},
		{"recall.4", 1, "0.6667"},
		{"success.1", 1, "0.0000"},
		{"success.2", 1, "1.0000"},
		// DCG@5 = 1/log2(3) + 2/log2(5) = 0.6309 + 0.8614 = 1.4923;
		// ideal 2,1,1: 2 + 1/log2(3) + 1/log2(4) = 3.1309 -> 0.4766
		{"ndcg", 1, "0.4766"},
		// DCG@2 = 0.6309; ideal@2 = 2 + 0.6309 = 2.6309 -> 0.2398
		{"ndcg_cut.2", 1, "0.2398"},
		// level 2: only d1 relevant, at rank 4: map 1/4
		{"map", 2, "0.2500"},
		// relevant d3 after 1 non-relevant (d4), d1 after 2 (d4, d2):
		// (1/log2(3) + 1/log2(4)) / 3 = (0.63093 + 0.5) / 3
		{"binG", 1, "0.3770"},
		{"relstring", 1, ""}, // per query only: no "all" line
		// unjudged in top 5: d4 (absent) and d6 (-1): 2/5
		{"unj.5", 1, "0.4000"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/l%d", tt.measure, tt.level), func(t *testing.T) {
			sel, err := treceval.Select([]string{tt.measure})
			if err != nil {
				t.Fatal(err)
			}
			o := treceval.DefaultOptions()
			o.RelevanceLevel = tt.level
			res, err := treceval.Evaluate(smallQrels.Judgments(), smallRun, sel, o)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := res.WriteTREC(&buf, false); err != nil {
				t.Fatal(err)
			}
			got := ""
			if line := strings.TrimSpace(buf.String()); line != "" {
				f := strings.Split(line, "\t")
				got = f[len(f)-1]
			}
			if got != tt.want {
				t.Errorf("%s = %q, want %q", tt.measure, got, tt.want)
			}
		})
	}
}

func TestRelString(t *testing.T) {
	sel, err := treceval.Select([]string{"relstring"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := treceval.Evaluate(smallQrels.Judgments(), smallRun, sel, treceval.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := res.WriteTREC(&buf, true); err != nil {
		t.Fatal(err)
	}
	if want := "relstring             \tq\t'-102.'\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

func TestSelectErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"bogus", `measure "bogus": unknown`},
		{"P.0", `cutoff must be a positive integer`},
		{"map.3", `measure "map" takes no parameters (got "3")`},
		{"utility.1,2", `want four comma-separated coefficients`},
		{"ndcg.1:3", `want grade=gain pairs`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			sel, err := treceval.Select([]string{tt.in})
			if err == nil {
				_, err = treceval.Evaluate(smallQrels.Judgments(), smallRun, sel, treceval.DefaultOptions())
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func FuzzSelect(f *testing.F) {
	for _, s := range []string{"P.5,10", "ndcg_cut.23.4", "iprec_at_recall..1,.5", "ndcg.1=3", "utility.1,-1,0,0", "official"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, m string) {
		sel, err := treceval.Select([]string{m})
		if err != nil {
			return
		}
		res, err := treceval.Evaluate(smallQrels.Judgments(), smallRun, sel, treceval.DefaultOptions())
		if err != nil {
			return
		}
		if err := res.WriteTREC(&bytes.Buffer{}, true); err != nil {
			t.Fatal(err)
		}
	})
}
