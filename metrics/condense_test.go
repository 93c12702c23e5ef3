package metrics_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/metrics"
)

// trecMeasures maps trec_eval's measure names to ours.
var trecMeasures = map[string]string{
	"ndcg_cut_5": "NDCG@5", "ndcg_cut_10": "NDCG@10", "P_5": "P@5", "P_10": "P@10",
	"recall_10": "Recall@10", "recall_20": "Recall@20", "recip_rank": "MRR", "map": "AP",
	"success_1": "Success@1", "success_5": "Success@5",
}

// TestCondenseMatchesTrecEvalJ scores the condensed rankings of a run and
// requires every per-query and mean value of trec_eval 10.0 -J (recorded
// in testdata/judgedonly, see its README) to 4 decimals.
func TestCondenseMatchesTrecEvalJ(t *testing.T) {
	shared := filepath.Join("..", "..", "shared", "data", "trec_eval")
	tests := []struct{ name, qrels, run, want string }{
		{"fixture", "testdata/judgedonly/qrels.txt", "testdata/judgedonly/run.txt", "testdata/judgedonly/trec_eval_J.txt"},
		{"trec_eval's own test files", filepath.Join(shared, "qrels.test"), filepath.Join(shared, "results.test"), "testdata/judgedonly/shared_results.test_J.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.qrels); err != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("%s: %v (CI must have ../shared/data)", tc.qrels, err)
				}
				t.Skipf("%s absent: %v", tc.qrels, err)
			}
			qrels := readQrels(t, tc.qrels)
			rankings := readRun(t, tc.run)
			names := make([]string, 0, len(trecMeasures))
			for _, n := range trecMeasures {
				names = append(names, n)
			}
			sort.Strings(names)
			card, err := metrics.ParseScorecard("j", names)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]map[string]float64{"all": {}}
			n := 0
			for q, ranking := range rankings {
				j, ok := qrels[q]
				if !ok {
					continue // trec_eval skips queries without judgments
				}
				n++
				vals := card.Score(metrics.Condense(ranking, j), j, metrics.DefaultOptions())
				got[q] = vals
				for m, v := range vals {
					got["all"][m] += v
				}
			}
			for m := range got["all"] {
				got["all"][m] /= float64(n)
			}
			checked := 0
			for _, line := range readLines(t, tc.want) {
				f := strings.Fields(line)
				ours, ok := trecMeasures[f[0]]
				if !ok {
					t.Fatalf("unexpected measure %q in %s", f[0], tc.want)
				}
				if g := fmt.Sprintf("%.4f", got[f[1]][ours]); g != f[2] {
					t.Errorf("%s %s (%s): got %s, trec_eval -J says %s", f[1], f[0], ours, g, f[2])
				}
				checked++
			}
			if checked < 20 {
				t.Fatalf("only %d reference values checked", checked)
			}
		})
	}
}

func TestCondense(t *testing.T) {
	j := metrics.Judgments{"a": 0, "b": 2, "c": -1}
	got := metrics.Condense([]string{"x", "a", "y", "b", "c", "z", "a"}, j)
	if strings.Join(got, ",") != "a,b,c,a" {
		t.Errorf("got %v, want [a b c a]", got)
	}
	if metrics.JudgedOnlyName("NDCG@10") != "NDCG@10_J" {
		t.Errorf("JudgedOnlyName: %q", metrics.JudgedOnlyName("NDCG@10"))
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			out = append(out, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func readQrels(t *testing.T, path string) map[string]metrics.Judgments {
	out := map[string]metrics.Judgments{}
	for _, l := range readLines(t, path) {
		f := strings.Fields(l)
		g, err := strconv.Atoi(f[3])
		if err != nil {
			t.Fatalf("%s: %q: %v", path, l, err)
		}
		if out[f[0]] == nil {
			out[f[0]] = metrics.Judgments{}
		}
		out[f[0]][f[2]] = g
	}
	return out
}

// readRun orders each query's documents as trec_eval does: score
// descending, then document id descending.
func readRun(t *testing.T, path string) map[string][]string {
	type hit struct {
		doc   string
		score float64
	}
	hits := map[string][]hit{}
	for _, l := range readLines(t, path) {
		f := strings.Fields(l)
		s, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", path, l, err)
		}
		hits[f[0]] = append(hits[f[0]], hit{f[2], s})
	}
	out := map[string][]string{}
	for q, hs := range hits {
		sort.Slice(hs, func(a, b int) bool {
			if hs[a].score != hs[b].score {
				return hs[a].score > hs[b].score
			}
			return hs[a].doc > hs[b].doc
		})
		for _, h := range hs {
			out[q] = append(out[q], h.doc)
		}
	}
	return out
}
