package tuner_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/adapt"
	"github.com/fusiontune/fusiontune/tuner/promote"
)

// adaptArms are query-time settings of the demo: rrf at two k and weights,
// linear, combmnz, and a BM25 floor.
func adaptArms() []experiments.TrialSpec {
	return []experiments.TrialSpec{
		replayTrialSpec("baseline", experiments.Params{"fusion.method": "rrf", "fusion.k": 60.0}),
		replayTrialSpec("rrf-k5-bm25", experiments.Params{"fusion.method": "rrf", "fusion.k": 5.0, "fusion.weights.bm25": 0.8, "fusion.weights.dense": 0.2}),
		replayTrialSpec("rrf-k5-dense", experiments.Params{"fusion.method": "rrf", "fusion.k": 5.0, "fusion.weights.bm25": 0.2, "fusion.weights.dense": 0.8}),
		replayTrialSpec("linear-0.3", experiments.Params{"fusion.method": "linear", "fusion.weights.bm25": 0.3, "fusion.weights.dense": 0.7}),
		replayTrialSpec("combmnz", experiments.Params{"fusion.method": "combmnz", "fusion.normalization": "z_score"}),
		replayTrialSpec("floor", experiments.Params{"fusion.method": "rrf", "bm25.min_score": 1.5}),
		replayTrialSpec("shallow", experiments.Params{"fusion.method": "rrf", "depth": 20.0}),
	}
}

// TestPolicyServedEqualsReplay learns a policy from a replayed run of the
// demo, and also builds one by hand that sends queries to four arms
// (floors and a shallower depth among them); each is written as a file,
// the engine is started behind real HTTP with fusion.policy naming it,
// and every query searched live (no per-request override, so the policy
// chooses) must score exactly as adapt.PolicyResults replays it.
func TestPolicyServedEqualsReplay(t *testing.T) {
	qs, corpus := demoQueries(t)
	b := newEngineBackend(t, corpus)
	_, err, run := sweep(t, b, qs, adaptArms(), tuner.ModeReplay, 0)
	if err != nil {
		t.Fatal(err)
	}
	o := adapt.RunOptions{Options: adapt.Options{Folds: 3, Seed: 7, Levels: 2, MinLeaf: 3}}
	reports, err := adapt.Run(context.Background(), run, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != 1 {
		t.Fatalf("%d reports, want 1", len(reports))
	}
	r := reports[0]
	if r.Oracle < r.Global || r.Oracle < r.Policy {
		t.Errorf("oracle %.4f below global %.4f or policy %.4f", r.Oracle, r.Global, r.Policy)
	}
	if r.Promotable != (r.Test.Significant && r.Test.Mean > 0) || r.Learned.Evaluation.Promotable != r.Promotable {
		t.Errorf("promotable %v with test %+v", r.Promotable, r.Test)
	}
	// A hand-made policy using four arms.
	var arms []fusion.Settings
	for _, name := range []string{"rrf-k5-bm25", "linear-0.3", "floor", "shallow"} {
		arms = append(arms, armOf(t, run, name))
	}
	hand := &fusion.Policy{Version: fusion.PolicyVersion, Depth: r.Learned.Depth, Arms: arms, Tree: &fusion.PolicyNode{
		Feature: "query_tokens", Threshold: 4.5,
		Below: &fusion.PolicyNode{Feature: "dense.top", Threshold: 0.3, Below: &fusion.PolicyNode{Arm: 0}, Above: &fusion.PolicyNode{Arm: 1}},
		Above: &fusion.PolicyNode{Feature: "overlap10", Threshold: 3.5, Below: &fusion.PolicyNode{Arm: 2}, Above: &fusion.PolicyNode{Arm: 3}},
	}}
	sc := demoScorer(t)
	for _, tc := range []struct {
		name string
		p    *fusion.Policy
	}{{"learned", r.Learned}, {"hand", hand}} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := adapt.PolicyResults(run, r.Collection, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			data, err := tc.p.Encode()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "policy.json")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			b.Base.Fusion.Policy = path
			if err := b.Apply(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			if err := b.Restart(context.Background()); err != nil {
				t.Fatal(err)
			}
			used := map[int]bool{}
			for i, q := range qs {
				resp, err := b.Search(context.Background(), backend.SearchRequest{Query: q.Text, K: 100})
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for _, h := range resp.Hits {
					ids = append(ids, h.DocID)
				}
				scores, primary := sc.Score(dedupe(ids), q.Judgments)
				w := want[i]
				if w.QueryID != q.ID {
					t.Fatalf("result %d is query %s, want %s", i, w.QueryID, q.ID)
				}
				if primary != w.Primary {
					t.Errorf("query %s: served primary %v, replayed %v", q.ID, primary, w.Primary)
				}
				for m, v := range w.Scores {
					if scores[m] != v {
						t.Errorf("query %s: %s served %v, replayed %v", q.ID, m, scores[m], v)
					}
				}
				if resp.Routing != w.Routing {
					t.Errorf("query %s: routing served %q, replayed %q", q.ID, resp.Routing, w.Routing)
				}
				for j, top := range w.Top {
					if j >= len(resp.Hits) || resp.Hits[j].DocID != top.DocID {
						t.Errorf("query %s: hit %d differs from the replay's %s", q.ID, j+1, top.DocID)
						break
					}
				}
				used[tc.p.Choose(featuresOf(t, run, r.Collection, i, tc.p.Depth))] = true
			}
			if tc.name == "hand" && len(used) < 3 {
				t.Errorf("the hand policy used %d arms on the demo, want >= 3 (the test would not cover choosing)", len(used))
			}
		})
	}
}

// armOf is the replayed settings of trial name of run.
func armOf(t *testing.T, run *runs.Run, name string) fusion.Settings {
	t.Helper()
	recs := readRecords(t, run)
	rec, ok := recs[name]
	ref := rec.Replay
	if ref == nil {
		ref = rec.Replayed
	}
	if !ok || ref == nil {
		t.Fatalf("trial %s: not replayed", name)
	}
	var s fusion.Settings
	if err := json.Unmarshal(ref.Settings, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// featuresOf computes the features of query i of a collection from its
// stored candidate lists.
func featuresOf(t *testing.T, run *runs.Run, collection string, i, depth int) map[string]float64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(run.Dir, runs.TrialsDir, collection))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var l struct {
		Text       string                        `json:"text"`
		Candidates map[string][]fusion.Candidate `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(lines[i+1]), &l); err != nil {
		t.Fatal(err)
	}
	return fusion.QueryFeatures(l.Text, l.Candidates, depth)
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// TestAdaptInputErrors: options out of range and runs without a replay
// group are input errors naming the field.
func TestAdaptInputErrors(t *testing.T) {
	qs, corpus := demoQueries(t)
	b := newEngineBackend(t, corpus)
	_, err, run := sweep(t, b, qs, adaptArms()[:2], tuner.ModeReplay, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		o    adapt.RunOptions
		want string
	}{
		{"one fold", adapt.RunOptions{Options: adapt.Options{Folds: 1, Levels: 1, MinLeaf: 1}}, "folds: must be in [2, 20] (got 1)"},
		{"levels", adapt.RunOptions{Options: adapt.Options{Folds: 2, Levels: 9, MinLeaf: 1}}, "levels: must be in [0, 8] (got 9)"},
		{"min leaf", adapt.RunOptions{Options: adapt.Options{Folds: 2, Levels: 1, MinLeaf: 0}}, "min-leaf: must be >= 1 (got 0)"},
		{"metric", adapt.RunOptions{Options: adapt.DefaultOptions(), Metric: "NDCG@7"}, `metric "NDCG@7": not in the run's scorecard`},
		{"collection", adapt.RunOptions{Options: adapt.DefaultOptions(), Collection: "collect-999.jsonl"}, `no replayed trials with two distinct settings or more in collection "collect-999.jsonl"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := adapt.Run(context.Background(), run, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			var ie *inputerr.Error
			if !errors.As(err, &ie) {
				t.Errorf("error %v is not an input error", err)
			}
		})
	}
}

// TestPolicyPromoteRollback promotes a policy onto a production engine
// config with a verifier that builds the real engine on the config on
// disk (the smoke check compares its rankings with the policy's replay),
// then rolls it back; a policy whose evaluation is not promotable is
// refused and changes nothing.
func TestPolicyPromoteRollback(t *testing.T) {
	qs, corpus := demoQueries(t)
	b := newEngineBackend(t, corpus)
	_, err, run := sweep(t, b, qs, adaptArms(), tuner.ModeReplay, 0)
	if err != nil {
		t.Fatal(err)
	}
	store, err := runs.Open(filepath.Dir(run.Dir))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	prod := filepath.Join(dir, "engine.yaml")
	if err := b.Base.WriteFile(prod); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(prod)
	if err != nil {
		t.Fatal(err)
	}
	verify := func(config, _ string, check func(context.Context, backend.Searcher) error) (func(context.Context) error, error) {
		return func(ctx context.Context) error {
			c, err := engine.LoadConfig(config)
			if err != nil {
				return err
			}
			e, err := engine.New(c, engine.Options{})
			if err != nil {
				return err
			}
			defer e.Close()
			if err := e.Build(ctx); err != nil {
				return err
			}
			return check(ctx, e)
		}, nil
	}
	p := &fusion.Policy{Version: fusion.PolicyVersion, Depth: 100, Arms: []fusion.Settings{armOf(t, run, "linear-0.3"), armOf(t, run, "floor")},
		Tree:       &fusion.PolicyNode{Feature: "query_tokens", Threshold: 4.5, Below: &fusion.PolicyNode{Arm: 0}, Above: &fusion.PolicyNode{Arm: 1}},
		Evaluation: &fusion.PolicyEvaluation{Promotable: false, Decision: "not promotable: made up"}}
	c := promote.PolicyConfig{ConfigPath: prod, Store: store, Run: run, Collection: "collect-000.jsonl", Policy: p, NewVerify: verify}
	if _, err := promote.PolicyInstall(context.Background(), c); !errors.Is(err, promote.ErrPolicyNotPromotable) || !strings.Contains(err.Error(), "made up") {
		t.Fatalf("non-promotable policy: error %v, want ErrPolicyNotPromotable with its decision", err)
	}
	if after, _ := os.ReadFile(prod); string(after) != string(before) {
		t.Fatal("a refused policy changed the production config")
	}
	p.Evaluation.Promotable = true
	pr, err := promote.PolicyInstall(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Status != promote.StatusOK {
		t.Fatalf("promotion status %q", pr.Status)
	}
	cfg, err := engine.LoadConfig(prod)
	if err != nil {
		t.Fatal(err)
	}
	got, err := fusion.LoadPolicy(cfg.Fusion.Policy)
	if err != nil {
		t.Fatalf("the promoted config's fusion.policy: %v", err)
	}
	if !reflect.DeepEqual(got.Tree, p.Tree) {
		t.Errorf("promoted tree %+v, want %+v", got.Tree, p.Tree)
	}
	if _, err := promote.Rollback(context.Background(), prod, store, verify); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(prod); string(after) != string(before) {
		t.Errorf("rollback left\n%s\nwant\n%s", after, before)
	}
}
