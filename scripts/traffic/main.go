// Command traffic is the end-to-end traffic experiment on the demo
// (scripts/traffic.sh, `make traffic`): `tune serve` with its query log
// on answers bounded loopback requests replaying the demo's queries (with
// repeats by a Zipf-like popularity and paraphrases), and a seeded
// position-biased click model over the golden grades clicks on results
// through POST /feedback. Then `tune harvest` builds a golden set from
// the log with implicit judgments (COEC) in the label store; their
// agreement with the gold grades is a weighted kappa; a small `tune`
// sweep finds a winner and `tune shadow` compares the production config
// (the log) with it: diff classes, and the sequential test's stopping
// point against the fixed-sample interval.
//
//	traffic -tune bin/tune -out DIR [-requests 2000] [-seed 1]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/experiments/demo"
	"github.com/fusiontune/fusiontune/scripts/tuneserve"
	"github.com/fusiontune/fusiontune/tuner/judging/harvest"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

func main() {
	var c config
	flag.StringVar(&c.tune, "tune", "bin/tune", "the tune binary")
	flag.StringVar(&c.out, "out", "", "working directory (created; must not exist or be empty)")
	flag.IntVar(&c.requests, "requests", 2000, "searches to send, [1, 100000]")
	flag.Int64Var(&c.seed, "seed", 1, "seed of the traffic and the clicks")
	flag.IntVar(&c.clients, "clients", 4, "concurrent clients, [1, 64]")
	flag.Parse()
	if c.out == "" || c.requests < 1 || c.requests > 100000 || c.clients < 1 || c.clients > 64 {
		fmt.Fprintln(os.Stderr, "traffic: -out DIR is required; -requests in [1, 100000]; -clients in [1, 64]")
		os.Exit(2)
	}
	s, err := run(context.Background(), c, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "traffic:", err)
		os.Exit(1)
	}
	os.Stdout.Write(s.markdown())
}

type config struct {
	tune, out         string
	requests, clients int
	seed              int64
}

// summary is what the experiment measured.
type summary struct {
	Requests, Clicks, Researches int
	Harvested                    string // tune harvest's output
	Judged                       string // tune judge run's output on the harvest's pool
	Reharvested                  string // a second harvest of the same log
	Labels                       int
	Agreement                    judge.Agreement
	Shadow                       json.RawMessage
	ShadowText                   string
	Winner                       string
}

func (s summary) markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "## Traffic experiment on the demo\n\n- %d searches, %d clicks, %d re-searches sent to `tune serve` (query log on)\n", s.Requests, s.Clicks, s.Researches)
	fmt.Fprintf(&b, "- harvest:\n\n```\n%s```\n", s.Harvested)
	fmt.Fprintf(&b, "- the harvest's pool judged by the gold judgments (a file judge standing in for people):\n\n```\n%s```\n", s.Judged)
	fmt.Fprintf(&b, "- the same log harvested again (--update --implicit):\n\n```\n%s```\n", s.Reharvested)
	fmt.Fprintf(&b, "- implicit labels (COEC) vs gold grades on %d pairs: exact %.3f, weighted kappa quadratic %.3f, linear %.3f\n",
		s.Agreement.N, s.Agreement.Exact, s.Agreement.KappaQuadratic, s.Agreement.KappaLinear)
	fmt.Fprintf(&b, "- confusion (rows gold 0..3, columns implicit 0..3): %v\n", s.Agreement.Matrix)
	fmt.Fprintf(&b, "- shadow: production (the log) vs the sweep's winner %s:\n\n```\n%s```\n", s.Winner, s.ShadowText)
	return b.Bytes()
}

// goldQuery is a demo query with its resolved judgments.
type goldQuery struct {
	ID, Text string
	Grades   map[string]int
}

func run(ctx context.Context, c config, progress io.Writer) (*summary, error) {
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return nil, err
	}
	if entries, _ := os.ReadDir(c.out); len(entries) > 0 {
		return nil, fmt.Errorf("%s is not empty", c.out)
	}
	tune, err := filepath.Abs(c.tune)
	if err != nil {
		return nil, err
	}
	gold, err := setup(c.out)
	if err != nil {
		return nil, err
	}
	s := &summary{}
	fmt.Fprintf(progress, "traffic: serving the demo with the query log on; %d searches from %d clients\n", c.requests, c.clients)
	texts, err := serveTraffic(ctx, c, tune, gold, s)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(progress, "traffic: harvesting")
	out, err := tuneRun(c.out, tune, "harvest", "--out", "harvested.json", "--sample", "top", "--n", "200", "--implicit", "--judge", "logs/queries.jsonl")
	if err != nil {
		return nil, err
	}
	s.Harvested = out
	if err := agreement(ctx, c.out, gold, texts, s); err != nil {
		return nil, err
	}
	if err := writeHarvestedQrels(c.out, gold, texts); err != nil {
		return nil, err
	}
	fmt.Fprintln(progress, "traffic: judging the harvest's pool, harvesting the same log again")
	if s.Judged, err = tuneRun(c.out, tune, "judge", "run", "--dataset-id", "harvested", "--pool", "harvested.pool.jsonl", "--judge", "file:harvested.qrels"); err != nil {
		return nil, err
	}
	if s.Reharvested, err = tuneRun(c.out, tune, "harvest", "--out", "harvested.json", "--update", "--sample", "top", "--n", "200", "--implicit", "logs/queries.jsonl"); err != nil {
		return nil, err
	}
	fmt.Fprintln(progress, "traffic: sweeping for a winner")
	if _, err := tuneRun(c.out, tune, "--experiments", "exp.json"); err != nil {
		return nil, err
	}
	fmt.Fprintln(progress, "traffic: shadow comparison")
	if s.ShadowText, err = tuneRun(c.out, tune, "shadow", "--log", "logs/queries.jsonl", "--control", "log", "--treatment", "run:latest", "--qrels", "harvested.qrels"); err != nil {
		return nil, err
	}
	js, err := tuneRun(c.out, tune, "shadow", "--log", "logs/queries.jsonl", "--control", "log", "--treatment", "run:latest", "--qrels", "harvested.qrels", "--format", "json")
	if err != nil {
		return nil, err
	}
	s.Shadow = json.RawMessage(js)
	s.Winner = "run:latest (best trial)"
	return s, nil
}

// setup writes the demo corpus, golden set, production engine config
// (query log on), settings and a small experiment into dir, and returns
// the golden queries with their judgments resolved against the corpus.
func setup(dir string) ([]goldQuery, error) {
	files := map[string]string{
		"corpus.jsonl": string(demo.Corpus),
		"golden.json":  string(demo.Golden),
		"prod.yaml":    "corpus: {path: corpus.jsonl}\ndense: {model: hash-384}\nfusion: {method: rrf, k: 60}\nlog: {path: logs/queries.jsonl}\n",
		"tune.yaml":    "runs_dir: runs\ndataset: {path: golden.json, corpus: corpus.jsonl}\nbackend: {config: prod.yaml}\neval: {concurrency: 4}\ndatasets: [{id: harvested, path: harvested.json, corpus: corpus.jsonl}]\n",
		"exp.json":     `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [{"name": "k=10", "params": {"fusion.k": 10}}, {"name": "dense x3", "params": {"fusion.weights.dense": 3}}, {"name": "bm25 x3", "params": {"fusion.weights.bm25": 3}}]}`,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		return nil, err
	}
	ds, err := dataset.Open(experiments.DatasetConfig{Path: filepath.Join(dir, "golden.json"), Corpus: filepath.Join(dir, "corpus.jsonl")}.WithDefaults(), "", filepath.Join(dir, "cache"))
	if err != nil {
		return nil, err
	}
	var out []goldQuery
	for _, q := range ds.Queries {
		if len(q.Judgments) > 0 {
			out = append(out, goldQuery{ID: q.ID, Text: q.Text, Grades: q.Judgments})
		}
	}
	return out, nil
}

// paraphrase returns a variant of a query: the same words in other case
// and punctuation (harvest groups them), or with a leading phrase (a
// distinct query with the same intent and judgments).
func paraphrase(text string, rng *rand.Rand) string {
	switch rng.IntN(6) {
	case 0:
		return strings.ToUpper(text[:1]) + text[1:] + "?"
	case 1:
		return "  " + strings.ToLower(text) + " !"
	case 2:
		return "how do i " + text
	case 3:
		return text + " please"
	}
	return text
}

// serveTraffic starts tune serve on prod.yaml, sends the searches and the
// simulated feedback, stops it, and returns the gold query behind every
// text sent (normalised text -> gold query index).
func serveTraffic(ctx context.Context, c config, tune string, gold []goldQuery, s *summary) (map[string]int, error) {
	srv, err := tuneserve.Start(ctx, tune, c.out, "prod.yaml", 2*time.Minute)
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	addr := srv.Addr
	rng := rand.New(rand.NewPCG(uint64(c.seed), 7))
	// Zipf-like popularity: query i is asked with weight 1/(i+1), over a
	// seeded permutation of the gold queries.
	order := rng.Perm(len(gold))
	weights := make([]float64, len(gold))
	total := 0.0
	for i := range weights {
		weights[i] = 1 / float64(i+1)
		total += weights[i]
	}
	type job struct {
		text string
		gold int
		rng  *rand.Rand
	}
	jobs := make([]job, c.requests)
	texts := map[string]int{}
	for n := range jobs {
		u, i := rng.Float64()*total, 0
		for ; i < len(weights)-1 && u > weights[i]; i++ {
			u -= weights[i]
		}
		g := order[i]
		text := paraphrase(gold[g].Text, rng)
		texts[harvest.Normalize(text)] = g
		jobs[n] = job{text: text, gold: g, rng: rand.New(rand.NewPCG(uint64(c.seed), uint64(n)))}
	}
	var mu sync.Mutex
	var firstErr error
	ch := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < c.clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				clicks, research, err := oneSearch(addr, j.text, gold[j.gold].Grades, j.rng)
				mu.Lock()
				s.Requests++
				s.Clicks += clicks
				if research {
					s.Researches++
				}
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
	return texts, firstErr
}

// clickProb is the chance an examined result is clicked, by gold grade.
var clickProb = []float64{0.05, 0.25, 0.55, 0.85}

// oneSearch sends one search and its simulated feedback: each result at
// position p is examined with probability 1/p^0.8 and, when examined,
// clicked with clickProb of its gold grade (0 when unjudged); a search
// with no click is followed by a re-search with probability 0.3.
func oneSearch(addr, text string, grades map[string]int, rng *rand.Rand) (clicks int, research bool, err error) {
	body, _ := json.Marshal(map[string]any{"query": text, "k": 10})
	resp, err := http.Post(addr+"/search", "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, false, err
	}
	var r struct {
		Hits []struct {
			DocID string `json:"doc_id"`
		} `json:"hits"`
	}
	err = json.NewDecoder(resp.Body).Decode(&r)
	resp.Body.Close()
	id := resp.Header.Get("X-Request-Id")
	if err != nil || resp.StatusCode != 200 || id == "" {
		return 0, false, fmt.Errorf("search %q: status %d, request id %q, %v", text, resp.StatusCode, id, err)
	}
	seen := map[string]bool{}
	pos := 0
	for _, h := range r.Hits {
		if seen[h.DocID] {
			continue
		}
		seen[h.DocID] = true
		pos++
		if rng.Float64() >= 1/math.Pow(float64(pos), 0.8) {
			continue
		}
		if rng.Float64() < clickProb[min(max(grades[h.DocID], 0), 3)] {
			if err := feedback(addr, map[string]any{"request_id": id, "action": "click", "doc_id": h.DocID}); err != nil {
				return clicks, false, err
			}
			clicks++
		}
	}
	if clicks == 0 && rng.Float64() < 0.3 {
		return 0, true, feedback(addr, map[string]any{"request_id": id, "action": "research"})
	}
	return clicks, false, nil
}

func feedback(addr string, ev map[string]any) error {
	body, _ := json.Marshal(ev)
	resp, err := http.Post(addr+"/feedback", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("feedback %s: status %d", body, resp.StatusCode)
	}
	return nil
}

// agreement compares the implicit labels in the label store with the
// gold grades of the queries they were harvested from (unjudged
// documents count as grade 0, as the click model sees them).
func agreement(ctx context.Context, dir string, gold []goldQuery, texts map[string]int, s *summary) error {
	st, err := labels.Open(ctx, filepath.Join(dir, "labels.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	ls, err := st.Latest(ctx, "harvested")
	if err != nil {
		return err
	}
	byID := map[string]int{}
	for norm, g := range texts {
		byID[harvest.QueryID(norm)] = g
	}
	var ratings []judge.Rating
	for _, l := range ls {
		g, ok := byID[l.Query]
		if !ok || l.Source != labels.SourceImplicit {
			continue
		}
		ratings = append(ratings, judge.Rating{Query: l.Query, Doc: l.Doc, Ref: gold[g].Grades[l.Doc], Got: l.Grade})
	}
	if len(ratings) == 0 {
		return errors.New("no implicit label matched a gold query")
	}
	s.Labels = len(ratings)
	s.Agreement = judge.Agree(ratings, 3)
	return nil
}

// writeHarvestedQrels writes the gold judgments under the harvested ids
// (each harvested query takes the judgments of the gold query it came
// from), for the shadow comparison's metric.
func writeHarvestedQrels(dir string, gold []goldQuery, texts map[string]int) error {
	var lines []string
	for norm, g := range texts {
		id := harvest.QueryID(norm)
		for doc, grade := range gold[g].Grades {
			lines = append(lines, fmt.Sprintf("%s 0 %s %d", id, doc, grade))
		}
	}
	slices.Sort(lines)
	return os.WriteFile(filepath.Join(dir, "harvested.qrels"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// tuneRun runs tune in dir and returns its stdout; a failure carries
// stderr.
func tuneRun(dir, tune string, args ...string) (string, error) {
	cmd := exec.Command(tune, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("tune %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}
