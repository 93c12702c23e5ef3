package main_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/trec"
)

// TestExportThenEval: tune export writes the golden set as TREC topics and
// qrels with the judgments resolved as the sweep scored them, and --trial
// the trial's recorded ranking; tune eval on them gives the leaderboard's
// NDCG@10. The BEIR export read back as a golden set exports the same
// qrels. A bad --format is a usage error.
func TestExportThenEval(t *testing.T) {
	e := newSweepEnv(t, sweepSettings+"backend:\n  engine:\n    dense:\n      model: hash-384\n")
	run, _, _ := e.newRun(t, "--experiments", policyFile(t, "significant.json"))
	var lb struct {
		Trials []struct {
			Name      string             `json:"name"`
			Scorecard map[string]float64 `json:"scorecard"`
		} `json:"trials"`
	}
	data, _ := os.ReadFile(filepath.Join(run, "leaderboard.json"))
	if err := json.Unmarshal(data, &lb); err != nil {
		t.Fatal(err)
	}
	for _, tr := range lb.Trials {
		t.Run(tr.Name, func(t *testing.T) {
			out := filepath.Join(e.dir, "trec-"+tr.Name)
			stdout, stderr, code := e.run("export", "--out", out, "--trial", filepath.Base(run)+":"+tr.Name)
			if code != 0 {
				t.Fatalf("export: exit %d\n%s", code, stderr)
			}
			for _, f := range []string{"topics.tsv", "qrels.txt", "run.trec"} {
				if !strings.Contains(stdout, filepath.Join(out, f)) {
					t.Errorf("stdout does not list %s:\n%s", f, stdout)
				}
			}
			// The embedded engine ranks by the tie rule, so the recorded
			// scores themselves are written (not rank values).
			if strings.Contains(stderr, "rank values") {
				t.Errorf("export wrote rank values for an embedded-engine trial:\n%s", stderr)
			}
			if r, err := trec.ReadRunFile(filepath.Join(out, "run.trec")); err != nil {
				t.Fatal(err)
			} else {
				for q, res := range r.Queries {
					if len(res) > 0 && res[0].Score == float64(len(res)) {
						t.Errorf("query %s: top score %v is a rank value, want the recorded fused score", q, res[0].Score)
					}
				}
			}
			stdout, stderr, code = e.run("eval", "--qrels", filepath.Join(out, "qrels.txt"), "--run", filepath.Join(out, "run.trec"), "-m", "ndcg_cut.10", "-c", "--format", "json")
			if code != 0 {
				t.Fatalf("eval: exit %d\n%s", code, stderr)
			}
			var res struct {
				All map[string]float64 `json:"all"`
			}
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatalf("%v\n%s", err, stdout)
			}
			want := tr.Scorecard["NDCG@10"]
			if got := res.All["ndcg_cut_10"]; want == 0 || math.Abs(got-want) > 1e-9 {
				t.Errorf("tune eval on the export: ndcg_cut_10 = %v, leaderboard NDCG@10 = %v", got, want)
			}
		})
	}

	beir := filepath.Join(e.dir, "beir")
	if _, stderr, code := e.run("export", "--format", "beir", "--out", beir); code != 0 {
		t.Fatalf("export --format beir: exit %d\n%s", code, stderr)
	}
	for _, f := range []string{"queries.jsonl", "qrels/test.tsv", "corpus.jsonl"} {
		if _, err := os.Stat(filepath.Join(beir, f)); err != nil {
			t.Errorf("BEIR export: %v", err)
		}
	}
	back := filepath.Join(e.dir, "back")
	if _, stderr, code := e.run("export", beir, "--out", back); code != 0 {
		t.Fatalf("export of the BEIR export: exit %d\n%s", code, stderr)
	}
	first, _ := os.ReadFile(filepath.Join(e.dir, "trec-"+lb.Trials[0].Name, "qrels.txt"))
	again, _ := os.ReadFile(filepath.Join(back, "qrels.txt"))
	if len(first) == 0 || string(first) != string(again) {
		t.Errorf("the BEIR export reads back as other qrels:\n%s\nvs\n%s", first, again)
	}

	if _, stderr, code := e.run("export", "--format", "csv"); code != 2 || !strings.Contains(stderr, `--format: want trec or beir (got "csv")`) {
		t.Errorf("--format csv: exit %d\n%s", code, stderr)
	}
}

// TestExportDevSplitThenEval: after a sweep on the dev split, tune export
// --trial exports the dev queries the trial was scored on (saying so), so
// that tune eval -c on the export gives the leaderboard's NDCG@10, not a
// mean over the whole golden set with the held-out queries at 0.
func TestExportDevSplitThenEval(t *testing.T) {
	e := newSweepEnv(t, sweepSettings+"backend:\n  engine:\n    dense:\n      model: hash-384\n")
	run, _, _ := e.newRun(t, "--experiments", policyFile(t, "significant.json"), "--split", "dev")
	var lb struct {
		Trials []struct {
			Name      string             `json:"name"`
			Scorecard map[string]float64 `json:"scorecard"`
		} `json:"trials"`
	}
	data, _ := os.ReadFile(filepath.Join(run, "leaderboard.json"))
	if err := json.Unmarshal(data, &lb); err != nil {
		t.Fatal(err)
	}
	best := lb.Trials[0]
	out := filepath.Join(e.dir, "dev-export")
	_, stderr, code := e.run("export", "--out", out, "--trial", filepath.Base(run)+":"+best.Name)
	if code != 0 {
		t.Fatalf("export: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "judged queries trial "+filepath.Base(run)+":"+best.Name+" was scored on") {
		t.Errorf("export does not say it exports the trial's queries:\n%s", stderr)
	}
	stdout, stderr, code := e.run("eval", "--qrels", filepath.Join(out, "qrels.txt"), "--run", filepath.Join(out, "run.trec"), "-m", "ndcg_cut.10", "-c", "--format", "json")
	if code != 0 {
		t.Fatalf("eval: exit %d\n%s", code, stderr)
	}
	var res struct {
		All map[string]float64 `json:"all"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if got, want := res.All["ndcg_cut_10"], best.Scorecard["NDCG@10"]; want == 0 || math.Abs(got-want) > 1e-9 {
		t.Errorf("tune eval -c on the dev export: ndcg_cut_10 = %v, leaderboard NDCG@10 = %v", got, want)
	}
}
