package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm"
	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm/llmtest"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// pairs are two queries' documents with the rule's grades (distinct query
// terms in the document, at most 3) written by hand.
var pairs = []judge.Pair{
	{Query: "q1", QueryText: "hybrid search fusion", Doc: "a", DocTitle: "Fusion", DocText: "hybrid search with rank fusion"}, // 3
	{Query: "q1", QueryText: "hybrid search fusion", Doc: "b", DocText: "search engines"},                                     // 1
	{Query: "q1", QueryText: "hybrid search fusion", Doc: "c", DocText: "cooking pasta"},                                      // 0
	{Query: "q2", QueryText: "vector index", Doc: "a", DocText: "a vector index of embeddings"},                               // 2
	{Query: "q2", QueryText: "vector index", Doc: "d", DocTitle: "Vector", DocText: "nothing else"},                           // 1
	{Query: "q1", QueryText: "hybrid search fusion", Doc: "e", DocText: "hybrid cars"},                                        // 1
}

var wantGrades = "q1/a=3 q1/b=1 q1/c=0 q2/a=2 q2/d=1 q1/e=1"

func grades(ls []labels.Label) string {
	var out []string
	for _, l := range ls {
		out = append(out, fmt.Sprintf("%s/%s=%d", l.Query, l.Doc, l.Grade))
	}
	return strings.Join(out, " ")
}

func config(t *testing.T, srv *llmtest.Server, edit func(*llm.Config)) llm.Config {
	t.Helper()
	p, err := llm.Builtin(llm.PromptGraded)
	if err != nil {
		t.Fatal(err)
	}
	c := llm.Config{Dataset: "demo", URL: srv.URL, Model: "rule-1", Prompt: p, Batch: 2, Concurrency: 2,
		Timeout: 5 * time.Second, Retries: 2, Backoff: time.Millisecond, MaxDocChars: 1000, Seed: 7}
	if edit != nil {
		edit(&c)
	}
	return c
}

func newJudge(t *testing.T, c llm.Config) *llm.Judge {
	t.Helper()
	j, err := llm.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func openStore(t *testing.T) *labels.Store {
	t.Helper()
	s, err := labels.Open(context.Background(), filepath.Join(t.TempDir(), "labels.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestJudge grades pairs through the server, in batches of one query, and
// a second run answers from the cache in the store without a call.
func TestJudge(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Key = "sk-test-0123456789"
	store := openStore(t)
	c := config(t, srv, func(c *llm.Config) { c.Store, c.APIKey = store, srv.Key })
	j := newJudge(t, c)
	if !strings.HasPrefix(j.Name(), "llm:rule-1@") || len(j.Name()) != len("llm:rule-1@")+8 {
		t.Fatalf("Name = %q", j.Name())
	}
	ls, err := j.Judge(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	if grades(ls) != wantGrades {
		t.Fatalf("grades %s\nwant   %s", grades(ls), wantGrades)
	}
	for _, l := range ls {
		if l.Judge != j.Name() || l.Source != labels.SourceLLM || l.Dataset != "demo" || !strings.HasSuffix(l.Rationale, "query terms") {
			t.Fatalf("label %+v", l)
		}
	}
	// q1 has 4 documents (2 calls of 2), q2 has 2 (1 call).
	if srv.Requests() != 3 {
		t.Fatalf("%d requests, want 3", srv.Requests())
	}
	if err := store.Append(context.Background(), ls); err != nil {
		t.Fatalf("the labels do not store: %v", err)
	}
	// A second judge (a re-run) finds every answer in the cache.
	j2 := newJudge(t, c)
	ls2, err := j2.Judge(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	if grades(ls2) != wantGrades || srv.Requests() != 3 || j2.Usage().CacheHits != len(pairs) || j2.Usage().Calls != 0 {
		t.Fatalf("warm run: %s, %d requests, usage %+v", grades(ls2), srv.Requests(), j2.Usage())
	}
	// Another prompt is another cache key.
	hpn, _ := llm.Builtin(llm.PromptHPN)
	c.Prompt = hpn
	j3 := newJudge(t, c)
	ls3, err := j3.Judge(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	if grades(ls3) != "q1/a=2 q1/b=1 q1/c=0 q2/a=2 q2/d=1 q1/e=1" || srv.Requests() != 6 {
		t.Fatalf("hpn run: %s, %d requests", grades(ls3), srv.Requests())
	}
}

// TestDocumentOrder: each call shows its documents in a seeded random
// order, the same for the same seed, and not always the pairs' order.
func TestDocumentOrder(t *testing.T) {
	many := make([]judge.Pair, 8)
	for i := range many {
		many[i] = judge.Pair{Query: "q", QueryText: "query", Doc: fmt.Sprintf("doc%d", i), DocText: fmt.Sprintf("text number %d", i)}
	}
	order := func(seed uint64) string {
		srv := llmtest.Start(t)
		j := newJudge(t, config(t, srv, func(c *llm.Config) { c.Batch, c.Seed = 8, seed }))
		if _, err := j.Judge(context.Background(), many); err != nil {
			t.Fatal(err)
		}
		p := srv.Prompts()[0]
		var got []string
		for _, line := range strings.Split(p, "\n") {
			if strings.HasPrefix(line, "text number ") {
				got = append(got, strings.TrimPrefix(line, "text number "))
			}
		}
		return strings.Join(got, "")
	}
	a, b := order(1), order(1)
	if a != b {
		t.Fatalf("seed 1 gave %s then %s", a, b)
	}
	if a == "01234567" && order(2) == "01234567" {
		t.Fatalf("documents presented in pair order with two seeds")
	}
	if len(a) != 8 {
		t.Fatalf("prompt shows %q", a)
	}
}

// TestConcurrency: at most Concurrency calls are in flight at once.
func TestConcurrency(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Fault = func(int64, http.ResponseWriter, *http.Request) bool {
		time.Sleep(30 * time.Millisecond)
		return false
	}
	var many []judge.Pair
	for i := range 24 {
		many = append(many, judge.Pair{Query: fmt.Sprintf("q%d", i%12), QueryText: "x", Doc: fmt.Sprintf("d%d", i), DocText: "y"})
	}
	j := newJudge(t, config(t, srv, func(c *llm.Config) { c.Batch, c.Concurrency = 1, 3 }))
	if _, err := j.Judge(context.Background(), many); err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != 24 || srv.MaxInFlight() > 3 || srv.MaxInFlight() < 2 {
		t.Fatalf("%d requests, %d at most at once; want 24, 2..3", srv.Requests(), srv.MaxInFlight())
	}
}

// answering returns a Fault that answers every request with content.
func answering(content string) func(int64, http.ResponseWriter, *http.Request) bool {
	return func(_ int64, w http.ResponseWriter, _ *http.Request) bool {
		llmtest.WriteCompletion(w, content, 10, 10)
		return true
	}
}

// TestBadAnswers: an answer that is not the JSON the prompt asked for is a
// clear error naming the query, nothing is cached, and no label returned
// (without answer retries, every pair of the run skipped fails it).
func TestBadAnswers(t *testing.T) {
	cases := []struct {
		name, content, want string
	}{
		{"prose", "I think D1 is relevant.", "no JSON in the answer"},
		{"broken JSON", `{"judgments": [{"id": "D1", "grade": 3}`, "the answer's JSON does not parse"},
		{"no judgments", `{"grades": []}`, `no "judgments" list`},
		{"unknown id", `{"judgments": [{"id": "D1", "grade": 1}, {"id": "D7", "grade": 1}]}`, `id "D7" is not one of the documents shown (D1, D2)`},
		{"missing doc", `{"judgments": [{"id": "D1", "grade": 1}]}`, "no grade for D2"},
		{"twice", `{"judgments": [{"id": "D1", "grade": 1}, {"id": "D1", "grade": 2}, {"id": "D2", "grade": 0}]}`, "document D1 graded twice"},
		{"grade off scale", `{"judgments": [{"id": "D1", "grade": 4}, {"id": "D2", "grade": 0}]}`, "grade 4: want an integer 0..3"},
		{"grade word", `{"judgments": [{"id": "D1", "grade": "great"}, {"id": "D2", "grade": 0}]}`, `grade "great": want an integer 0..3`},
		{"confidence", `{"judgments": [{"id": "D1", "grade": 1, "confidence": 2}, {"id": "D2", "grade": 0}]}`, "confidence 2 outside [0, 1]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.Start(t)
			srv.Fault = answering(c.content)
			store := openStore(t)
			j := newJudge(t, config(t, srv, func(c *llm.Config) { c.Store, c.Concurrency, c.AnswerRetries = store, 1, 0 }))
			ls, err := j.Judge(context.Background(), pairs[:2])
			if err == nil || !errors.Is(err, llm.ErrBadAnswer) || !strings.Contains(err.Error(), c.want) ||
				!strings.Contains(err.Error(), `query "q1" (2 documents)`) || !strings.Contains(err.Error(), "the answer began") {
				t.Fatalf("err = %v\nwant ErrBadAnswer for query q1 with %q", err, c.want)
			}
			if len(ls) != 0 || srv.Requests() != 1 {
				t.Fatalf("%d labels, %d requests; want none and 1 (no answer retries)", len(ls), srv.Requests())
			}
			if e, _ := j.Estimate(context.Background(), pairs[:2]); e.Cached != 0 {
				t.Fatalf("a bad answer was cached")
			}
		})
	}
	// Fenced JSON, a bare list and grade words of the hpn prompt are fine.
	for _, content := range []string{"```json\n{\"judgments\": [{\"id\": \"D2\", \"grade\": \"1\"}, {\"id\": \"[D1]\", \"grade\": 3.0}]}\n```",
		`Here: [{"id": "D1", "grade": 3}, {"id": "D2", "grade": 1, "confidence": 0.5}]`} {
		srv := llmtest.Start(t)
		srv.Fault = answering(content)
		j := newJudge(t, config(t, srv, func(c *llm.Config) { c.Seed = 1 }))
		ls, err := j.Judge(context.Background(), pairs[:2])
		if err != nil || len(ls) != 2 {
			t.Fatalf("%q: %v, %d labels", content, err, len(ls))
		}
	}
}

// TestMalformedRetries: a malformed answer is asked again with a note
// saying what was wrong, after a backoff, until it is well formed; one
// still malformed after AnswerRetries more asks skips its pairs (named,
// never labelled, nothing cached) while the other queries are judged; a
// run whose every answer is malformed fails.
func TestMalformedRetries(t *testing.T) {
	cases := []struct {
		name     string
		retries  int
		bad      func(query string, attempt int) bool
		requests int64
		want     string // the labels
		skipped  string // the skips' queries and documents
		err      string // "" for success
	}{
		{name: "prose then fine", retries: 2, bad: func(_ string, a int) bool { return a < 1 },
			requests: 6, want: wantGrades},
		{name: "prose, missing, then fine", retries: 2, bad: func(_ string, a int) bool { return a < 2 },
			requests: 9, want: wantGrades},
		{name: "q2 always malformed", retries: 2, bad: func(q string, _ int) bool { return q == "vector index" },
			requests: 2 + 3, want: "q1/a=3 q1/b=1 q1/c=0 q1/e=1", skipped: "q2:a,d"},
		{name: "no retries", retries: 0, bad: func(q string, _ int) bool { return q == "vector index" },
			requests: 3, want: "q1/a=3 q1/b=1 q1/c=0 q1/e=1", skipped: "q2:a,d"},
		{name: "every answer malformed", retries: 1, bad: func(string, int) bool { return true },
			requests: 6, skipped: "q1:a,b q1:c,e q2:a,d", err: "no pair judged: every answer was malformed after 2 attempts"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.Start(t)
			srv.SetMalformed(c.bad)
			store := openStore(t)
			j := newJudge(t, config(t, srv, func(cf *llm.Config) { cf.AnswerRetries, cf.Store, cf.Backoff = c.retries, store, 5*time.Millisecond }))
			start := time.Now()
			ls, err := j.Judge(context.Background(), pairs)
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, llm.ErrBadAnswer)) {
				t.Fatalf("Judge: %v; want %q", err, c.err)
			}
			if grades(ls) != c.want || srv.Requests() != c.requests {
				t.Fatalf("%s, %d requests; want %s, %d", grades(ls), srv.Requests(), c.want, c.requests)
			}
			var skipped []string
			for _, s := range j.Skipped() {
				skipped = append(skipped, s.Query+":"+strings.Join(s.Docs, ","))
				if s.Attempts != c.retries+1 || !errors.Is(s.Err, llm.ErrBadAnswer) || !strings.Contains(s.String(), "the answer still malformed after") {
					t.Fatalf("skip %s", s)
				}
			}
			if strings.Join(skipped, " ") != c.skipped {
				t.Fatalf("skipped %q, want %q", skipped, c.skipped)
			}
			if c.retries > 0 && c.requests > 3 && time.Since(start) < 5*time.Millisecond {
				t.Fatalf("asked again after %s, before the backoff", time.Since(start))
			}
			// Only well-formed answers are cached.
			if e, _ := j.Estimate(context.Background(), pairs); e.Cached != len(ls) {
				t.Fatalf("%d answers cached, want %d", e.Cached, len(ls))
			}
		})
	}
	// The note asking again says what was wrong and which documents to grade.
	srv := llmtest.Start(t)
	srv.SetMalformed(func(_ string, a int) bool { return a < 1 })
	j := newJudge(t, config(t, srv, func(cf *llm.Config) { cf.Batch, cf.AnswerRetries = 3, 1 }))
	if _, err := j.Judge(context.Background(), pairs[:3]); err != nil {
		t.Fatal(err)
	}
	notes := srv.Notes()
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "Your answer could not be read: no JSON in the answer") ||
		!strings.HasSuffix(notes[0], "grading each of D1, D2, D3 exactly once.") {
		t.Fatalf("notes %q", notes)
	}
}

// TestRetries: 429 and 5xx are retried (Retry-After honoured), a storm
// gives up after Retries+1 attempts with the last status, and a 4xx is
// final at once.
func TestRetries(t *testing.T) {
	status := func(code int, times int64, header string) func(int64, http.ResponseWriter, *http.Request) bool {
		return func(n int64, w http.ResponseWriter, _ *http.Request) bool {
			if n > times {
				return false
			}
			if header != "" {
				w.Header().Set("Retry-After", header)
			}
			http.Error(w, `{"error":{"message":"slow down"}}`, code)
			return true
		}
	}
	cases := []struct {
		name     string
		fault    func(int64, http.ResponseWriter, *http.Request) bool
		retries  int
		requests int64
		want     string // "" for success
		minWait  time.Duration
	}{
		{name: "429 then fine", fault: status(429, 2, "0"), retries: 3, requests: 3},
		{name: "Retry-After honoured", fault: status(429, 1, "1"), retries: 1, requests: 2, minWait: time.Second},
		{name: "503 storm", fault: status(503, 100, ""), retries: 3, requests: 4, want: "HTTP 503"},
		{name: "500 storm, no retries", fault: status(500, 100, ""), retries: 0, requests: 1, want: "gave up after 1 attempts"},
		{name: "401 is final", fault: status(401, 100, ""), retries: 3, requests: 1, want: "HTTP 401"},
		{name: "truncated body", fault: func(n int64, w http.ResponseWriter, _ *http.Request) bool {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"choices":[{"message":{"content":"{\"judg`))
			return true
		}, retries: 2, requests: 3, want: "not a chat completion's JSON"},
		{name: "truncated then whole", fault: func(n int64, w http.ResponseWriter, _ *http.Request) bool {
			if n > 1 {
				return false
			}
			w.Write([]byte(`{"choices":[`))
			return true
		}, retries: 2, requests: 2},
		{name: "timeout", fault: func(n int64, w http.ResponseWriter, r *http.Request) bool {
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
			return true
		}, retries: 1, requests: 2, want: "no answer within 200ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.Start(t)
			srv.Fault = c.fault
			store := openStore(t)
			j := newJudge(t, config(t, srv, func(cf *llm.Config) {
				cf.Retries, cf.Concurrency, cf.Store, cf.Timeout = c.retries, 1, store, 200*time.Millisecond
			}))
			start := time.Now()
			ls, err := j.Judge(context.Background(), pairs[:2])
			if c.want == "" {
				if err != nil || grades(ls) != "q1/a=3 q1/b=1" {
					t.Fatalf("Judge: %v (%s)", err, grades(ls))
				}
			} else if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, llm.ErrHTTP) || len(ls) != 0 {
				t.Fatalf("Judge: %v, %d labels; want ErrHTTP with %q and none", err, len(ls), c.want)
			}
			if srv.Requests() != c.requests {
				t.Fatalf("%d requests, want %d", srv.Requests(), c.requests)
			}
			if time.Since(start) < c.minWait {
				t.Fatalf("retried after %s, before Retry-After's %s", time.Since(start), c.minWait)
			}
		})
	}
}

// TestBudget: the budget in calls and in tokens is never exceeded, retries
// included; judging stops with ErrBudget and keeps the labels it got.
func TestBudget(t *testing.T) {
	var many []judge.Pair
	for i := range 20 {
		many = append(many, judge.Pair{Query: fmt.Sprintf("q%d", i/2), QueryText: "alpha beta", Doc: fmt.Sprintf("d%d", i), DocText: "alpha"})
	}
	t.Run("calls", func(t *testing.T) {
		srv := llmtest.Start(t)
		j := newJudge(t, config(t, srv, func(c *llm.Config) { c.Concurrency, c.Budget = 4, llm.Budget{Calls: 3} }))
		ls, err := j.Judge(context.Background(), many)
		if !errors.Is(err, llm.ErrBudget) || len(ls) != 6 || srv.Requests() != 3 || j.Usage().Calls != 3 {
			t.Fatalf("err %v, %d labels, %d requests; want ErrBudget, 6, 3", err, len(ls), srv.Requests())
		}
	})
	t.Run("calls with retries", func(t *testing.T) {
		srv := llmtest.Start(t)
		srv.Fault = func(_ int64, w http.ResponseWriter, _ *http.Request) bool {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return true
		}
		j := newJudge(t, config(t, srv, func(c *llm.Config) { c.Retries, c.Concurrency, c.Budget = 10, 4, llm.Budget{Calls: 5} }))
		_, err := j.Judge(context.Background(), many)
		if !errors.Is(err, llm.ErrBudget) || srv.Requests() != 5 {
			t.Fatalf("err %v, %d requests; want ErrBudget after exactly 5", err, srv.Requests())
		}
	})
	t.Run("tokens", func(t *testing.T) {
		srv := llmtest.Start(t)
		probe := newJudge(t, config(t, srv, nil))
		e, err := probe.Estimate(context.Background(), many)
		if err != nil || e.Calls != 10 || e.TokensBound <= e.TokensGuess {
			t.Fatalf("Estimate = %+v, %v", e, err)
		}
		budget := e.TokensBound / 10 * 3 / 2 // room for one call at its bound, not two
		j := newJudge(t, config(t, srv, func(c *llm.Config) { c.Concurrency, c.Budget = 4, llm.Budget{Tokens: budget} }))
		ls, err := j.Judge(context.Background(), many)
		u := j.Usage()
		if !errors.Is(err, llm.ErrBudget) || u.Tokens > budget || u.Calls >= 10 || len(ls) != int(u.Calls)*2 || srv.Requests() != u.Calls {
			t.Fatalf("err %v, usage %+v (budget %d), %d labels, %d requests", err, u, budget, len(ls), srv.Requests())
		}
		// The server reports fewer tokens than the bound: the unused
		// reservations were given back, so more than one call fits.
		if u.Calls < 2 {
			t.Fatalf("only %d calls fit %d tokens: reservations not released", u.Calls, budget)
		}
	})
	t.Run("unknown usage counts at the bound", func(t *testing.T) {
		srv := llmtest.Start(t)
		srv.Fault = func(_ int64, w http.ResponseWriter, r *http.Request) bool {
			w.Write([]byte(`{"choices":[{"message":{"content":"{\"judgments\":[{\"id\":\"D1\",\"grade\":1},{\"id\":\"D2\",\"grade\":1}]}"}}]}`))
			return true
		}
		probe := newJudge(t, config(t, srv, nil))
		e, _ := probe.Estimate(context.Background(), many)
		budget := e.TokensBound / 2
		j := newJudge(t, config(t, srv, func(c *llm.Config) { c.Concurrency, c.Budget = 3, llm.Budget{Tokens: budget} }))
		_, err := j.Judge(context.Background(), many)
		if u := j.Usage(); !errors.Is(err, llm.ErrBudget) || u.Tokens > budget || u.Calls != 5 {
			t.Fatalf("err %v, usage %+v, budget %d; want 5 calls at their bound", err, u, budget)
		}
	})
}

// TestKeyNeverShown: a server echoing the API key in its error has it
// redacted from the error; the key goes in the Authorization header only.
func TestKeyNeverShown(t *testing.T) {
	const key = "sk-live-abcdef0123456789"
	srv := llmtest.Start(t)
	srv.Fault = func(_ int64, w http.ResponseWriter, r *http.Request) bool {
		http.Error(w, "invalid key: "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), http.StatusForbidden)
		return true
	}
	red := runs.NewRedactor()
	j := newJudge(t, config(t, srv, func(c *llm.Config) { c.APIKey, c.Redactor = key, red }))
	_, err := j.Judge(context.Background(), pairs[:1])
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), runs.Redacted) {
		t.Fatalf("err = %v; want the key redacted", err)
	}
}

// TestConfigValidate lists every setting out of range at once.
func TestConfigValidate(t *testing.T) {
	_, err := llm.New(llm.Config{URL: "ftp://x", Batch: 0, Concurrency: 65, Timeout: 0, Retries: 11, MaxDocChars: 5, Budget: llm.Budget{Calls: -1}})
	for _, want := range []string{`url "ftp://x"`, "model: must be set", "prompt: must be set", "dataset: must be set",
		"batch must be in [1, 50] (got 0)", "concurrency must be in [1, 64] (got 65)", "retries must be in [0, 10] (got 11)",
		"max_doc_chars must be in [100, 100000] (got 5)", "timeout must be > 0", "budget: calls and tokens must be >= 0"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New: %v\nlacks %q", err, want)
		}
	}
}

// TestCustomPrompt: a user's template is executed with the query and the
// documents, its hash names the judge, and a template that does not
// execute is refused before any call.
func TestCustomPrompt(t *testing.T) {
	text := "Query: {{.Query}}\nGrade 0..{{.MaxGrade}}.\n{{range .Docs}}[{{.ID}}] {{.Text}}\n{{end}}JSON please.\n"
	p, err := llm.NewPrompt("mine.tmpl", "", text, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(t)
	j := newJudge(t, config(t, srv, func(c *llm.Config) { c.Prompt = p }))
	if _, err := j.Judge(context.Background(), pairs[:2]); err == nil || !strings.Contains(err.Error(), "grade 3: want an integer 0..1") {
		t.Fatalf("the rule answers 3 for q1/a, off this prompt's scale 0..1: %v", err)
	}
	if got := srv.Prompts()[0]; !strings.HasPrefix(got, "Query: hybrid search fusion\nGrade 0..1.\n[D") {
		t.Fatalf("rendered prompt:\n%s", got)
	}
	builtin, _ := llm.Builtin(llm.PromptGraded)
	if p.Hash() == builtin.Hash() || strings.Contains(j.Name(), builtin.Hash()[:8]) {
		t.Fatal("a custom prompt shares the shipped prompt's hash")
	}
	for _, c := range []struct{ text, want string }{
		{"{{.Nope}}", "can't evaluate field Nope"},
		{"{{range .Docs}}", "unexpected EOF"},
	} {
		if _, err := llm.NewPrompt("bad.tmpl", "", c.text, 3, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewPrompt(%q) = %v; want %q", c.text, err, c.want)
		}
	}
	if _, err := llm.NewPrompt("x", "", "{{.Query}}", 0, nil); err == nil || !strings.Contains(err.Error(), "max grade must be in [1, 100]") {
		t.Errorf("max grade 0: %v", err)
	}
}

func TestBudgetVerdict(t *testing.T) {
	est := llm.Estimate{Calls: 4, TokensBound: 1000}
	tests := []struct {
		b    llm.Budget
		want string
	}{
		{llm.Budget{}, "budget: none set"},
		{llm.Budget{Calls: 4}, "budget: calls 4, tokens unbounded: enough for every call"},
		{llm.Budget{Calls: 10, Tokens: 1000}, "budget: calls 10, tokens 1000: enough for every call"},
		{llm.Budget{Calls: 3}, "budget: calls 3, tokens unbounded: judging stops when it is spent (the pool's first pairs are judged first)"},
		{llm.Budget{Tokens: 999}, "budget: calls unbounded, tokens 999: judging stops when it is spent (the pool's first pairs are judged first)"},
	}
	for _, tc := range tests {
		if got := tc.b.Verdict(est); got != tc.want {
			t.Errorf("%+v.Verdict = %q, want %q", tc.b, got, tc.want)
		}
	}
}

// TestPromptContext renders a query's context into a template that shows
// it, at most MaxReferences references.
func TestPromptContext(t *testing.T) {
	text := "Query: {{.Query}}\n{{.Category}}|{{.Notes}}|{{.Rubric}}\n{{range .References}}> {{.}}\n{{end}}{{range .Docs}}[{{.ID}}] {{.Text}}\n{{end}}\nAnswer with JSON.\n"
	p, err := llm.NewPrompt("ctx.tmpl", "", text, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !p.UsesContext() {
		t.Fatal("the template shows the context")
	}
	if b, _ := llm.Builtin(llm.PromptGraded); b.UsesContext() {
		t.Fatal("the shipped graded prompt shows no context")
	}
	srv := llmtest.Start(t)
	refs := []string{"one", "two", "three", "four"}
	j := newJudge(t, config(t, srv, func(c *llm.Config) {
		c.Prompt = p
		c.Contexts = map[string]judge.QueryContext{"q2": {Category: "adversarial", Notes: "a trap", Rubric: "be strict", References: refs}}
	}))
	if _, err := j.Judge(context.Background(), pairs[3:5]); err != nil {
		t.Fatal(err)
	}
	got := srv.Prompts()[0]
	if want := "Query: vector index\nadversarial|a trap|be strict\n> one\n> two\n> three\n[D"; !strings.HasPrefix(got, want) {
		t.Fatalf("rendered prompt:\n%s\nwant the prefix\n%s", got, want)
	}
}
