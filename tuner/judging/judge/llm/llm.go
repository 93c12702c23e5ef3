package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/fusiontune/fusiontune/internal/openai"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// Defaults and ranges of Config's numbers (settings judge.*).
const (
	DefaultBatch       = 5
	MaxBatch           = 50
	DefaultConcurrency = 4
	MaxConcurrency     = 64
	DefaultTimeout     = 60 * time.Second
	MaxTimeout         = 10 * time.Minute
	DefaultRetries     = 4
	MaxRetries         = 10
	// DefaultAnswerRetries and MaxAnswerRetries bound AnswerRetries.
	DefaultAnswerRetries = 2
	MaxAnswerRetries     = 10
	DefaultMaxDocChars   = 3000
	MinMaxDocChars       = 100
	MaxMaxDocChars       = 100_000
	DefaultBackoff       = time.Second
)

// Config configures an LLM judge.
type Config struct {
	// Dataset is the labels' dataset.
	Dataset string
	// URL is the server's base URL: requests go to URL/v1/chat/completions
	// (a URL already ending in /v1 is not doubled).
	URL string
	// Model is the model name sent with each request.
	Model string
	// APIKey is sent as "Authorization: Bearer <key>" ("" sends none). It
	// is added to Redactor and appears nowhere else.
	APIKey string
	// Prompt is the prompt template.
	Prompt *Prompt
	// Batch is how many documents of one query one call grades (1..MaxBatch).
	Batch int
	// Concurrency is how many calls run at once (1..MaxConcurrency).
	Concurrency int
	// Timeout bounds each call (0 < Timeout <= MaxTimeout).
	Timeout time.Duration
	// Retries is how many more attempts a call that failed transiently
	// gets (0..MaxRetries).
	Retries int
	// AnswerRetries is how many more times a malformed answer (prose, a
	// document missing, a grade off the scale) is asked again, with a short
	// note saying what was wrong (0..MaxAnswerRetries). The pairs of an
	// answer still malformed are skipped (Skipped).
	AnswerRetries int
	// Backoff is the first retry's wait, doubled each retry (a server's
	// Retry-After replaces it); asking again after a malformed answer
	// waits the same way.
	Backoff time.Duration
	// MaxDocChars truncates document texts (title and text) to this many
	// characters (MinMaxDocChars..MaxMaxDocChars).
	MaxDocChars int
	// Budget bounds calls and tokens (0: unbounded).
	Budget Budget
	// Seed orders the documents of each call.
	Seed uint64
	// Contexts are the queries' contexts by query id, shown to templates
	// that use them (TemplateData); nil: none.
	Contexts map[string]judge.QueryContext
	// Fresh asks the server every time: answers are neither read from nor
	// written to the cache (re-judging, audits).
	Fresh bool
	// Store, when set, caches answers so a re-run costs nothing.
	Store *labels.Store
	// Redactor scrubs secrets from error messages (the API key is added).
	Redactor *runs.Redactor
	// HTTPClient is the client used (http.DefaultClient's transport when nil).
	HTTPClient *http.Client
}

// Validate reports every setting out of its range.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if u, err := url.Parse(c.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("url %q: want an http(s) base URL such as http://127.0.0.1:8000", c.URL)
	}
	if strings.TrimSpace(c.Model) == "" {
		bad("model: must be set")
	}
	if c.Prompt == nil {
		bad("prompt: must be set")
	}
	if c.Dataset == "" {
		bad("dataset: must be set")
	}
	ints := func(name string, v, lo, hi int) {
		if v < lo || v > hi {
			bad("%s must be in [%d, %d] (got %d)", name, lo, hi, v)
		}
	}
	ints("batch", c.Batch, 1, MaxBatch)
	ints("concurrency", c.Concurrency, 1, MaxConcurrency)
	ints("retries", c.Retries, 0, MaxRetries)
	ints("answer_retries", c.AnswerRetries, 0, MaxAnswerRetries)
	ints("max_doc_chars", c.MaxDocChars, MinMaxDocChars, MaxMaxDocChars)
	if c.Timeout <= 0 || c.Timeout > MaxTimeout {
		bad("timeout must be > 0 and at most %s (got %s)", MaxTimeout, c.Timeout)
	}
	if c.Backoff < 0 || c.Backoff > time.Minute {
		bad("backoff must be in [0, 1m] (got %s)", c.Backoff)
	}
	if c.Budget.Calls < 0 || c.Budget.Tokens < 0 {
		bad("budget: calls and tokens must be >= 0 (0: no bound; got %d, %d)", c.Budget.Calls, c.Budget.Tokens)
	}
	return errors.Join(errs...)
}

// Judge is the LLM judge. Use New; one Judge may run once or many times
// (its budget spans all runs).
type Judge struct {
	cfg    Config
	hash   string
	client *openai.Client
	retry  openai.Retry
	meter  *meter
	hits   int
	skips  []Skip
	mu     sync.Mutex
}

var _ judge.Judge = (*Judge)(nil)

// New checks cfg and returns a judge.
func New(cfg Config) (*Judge, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("llm judge: %w", err)
	}
	if cfg.Redactor == nil {
		cfg.Redactor = runs.NewRedactor()
	}
	if cfg.APIKey != "" {
		cfg.Redactor.AddHeader("Bearer " + cfg.APIKey)
	}
	base := strings.TrimSuffix(strings.TrimSuffix(cfg.URL, "/"), "/v1")
	client := &openai.Client{BaseURL: base, APIKey: cfg.APIKey, HTTP: cfg.HTTPClient, Timeout: cfg.Timeout,
		MaxResponseBytes: maxResponseBytes, Redact: cfg.Redactor.String}
	// Backoff doubles each retry up to 32 times itself, ±20%; a server's
	// Retry-After replaces it, up to MaxRetryAfter.
	retry := openai.Retry{Retries: cfg.Retries, Backoff: cfg.Backoff, MaxBackoff: cfg.Backoff << 5,
		MaxRetryAfter: MaxRetryAfter, Jitter: 0.2}
	return &Judge{cfg: cfg, hash: cfg.Prompt.Hash(), client: client, retry: retry, meter: newMeter(cfg.Budget)}, nil
}

// Name returns "llm:<model>@<first 8 of the prompt hash>".
func (j *Judge) Name() string { return "llm:" + j.cfg.Model + "@" + j.hash[:8] }

// SetFresh makes the judge ask the server every time, bypassing the
// answer cache (Config.Fresh); call it before judging.
func (j *Judge) SetFresh(fresh bool) { j.cfg.Fresh = fresh }

// ShareBudget makes the judge spend from other's budget (an ensemble's
// members bound together): call it before judging. Usage then reports
// the shared calls, tokens and labels; CacheHits stay the judge's own.
func (j *Judge) ShareBudget(other *Judge) { j.meter = other.meter }

// Usage returns what the judge spent so far.
func (j *Judge) Usage() Usage {
	u := j.meter.usage()
	j.mu.Lock()
	u.CacheHits = j.hits
	j.mu.Unlock()
	return u
}

func (j *Judge) redact(s string) string { return j.cfg.Redactor.String(s) }

// batch is the pairs of one call: one query, up to Batch documents.
type batch struct {
	idx []int // indices into the run's pairs
}

// plan splits the pairs not answered by the cache into batches: by query
// in first-seen order, Batch documents each.
func (j *Judge) plan(pairs []judge.Pair, cached map[int]bool) []batch {
	var order []string
	byQuery := map[string][]int{}
	for i, p := range pairs {
		if cached[i] {
			continue
		}
		if _, ok := byQuery[p.Query]; !ok {
			order = append(order, p.Query)
		}
		byQuery[p.Query] = append(byQuery[p.Query], i)
	}
	var out []batch
	for _, q := range order {
		idx := byQuery[q]
		for start := 0; start < len(idx); start += j.cfg.Batch {
			out = append(out, batch{idx: idx[start:min(start+j.cfg.Batch, len(idx))]})
		}
	}
	return out
}

// request builds the call for b: the documents in a seeded random order,
// with short ids D1..Dn. It returns the request, the pair index behind
// each short id, and the call's token bound.
func (j *Judge) request(pairs []judge.Pair, b batch) (openai.ChatRequest, map[string]int, int64, error) {
	order := append([]int(nil), b.idx...)
	h := fnv.New64a()
	h.Write([]byte(pairs[order[0]].Query))
	for _, i := range order {
		h.Write([]byte{0})
		h.Write([]byte(pairs[i].Doc))
	}
	rng := rand.New(rand.NewPCG(j.cfg.Seed, h.Sum64()))
	rng.Shuffle(len(order), func(a, c int) { order[a], order[c] = order[c], order[a] })
	data := TemplateData{Query: pairs[order[0]].QueryText, MaxGrade: j.cfg.Prompt.MaxGrade}
	if c, ok := j.cfg.Contexts[pairs[order[0]].Query]; ok {
		data.Category, data.Notes, data.Rubric = c.Category, c.Notes, c.Rubric
		for _, r := range c.References[:min(len(c.References), MaxReferences)] {
			data.References = append(data.References, truncate(r, j.cfg.MaxDocChars))
		}
	}
	ids := map[string]int{}
	for n, i := range order {
		id := fmt.Sprintf("D%d", n+1)
		ids[id] = i
		data.Docs = append(data.Docs, TemplateDoc{ID: id, Title: truncate(pairs[i].DocTitle, j.cfg.MaxDocChars),
			Text: truncate(pairs[i].DocText, j.cfg.MaxDocChars)})
	}
	user, err := j.cfg.Prompt.Render(data)
	if err != nil {
		return openai.ChatRequest{}, nil, 0, err
	}
	maxTokens := answerTokens(len(order))
	req := openai.ChatRequest{Model: j.cfg.Model, Temperature: 0, MaxTokens: maxTokens, Messages: []openai.ChatMessage{
		{Role: "system", Content: j.cfg.Prompt.System}, {Role: "user", Content: user}}}
	return req, ids, tokenBound(req), nil
}

// answerTokens is the max_tokens of a call grading n documents: room for
// one short JSON entry with a reason per document.
func answerTokens(n int) int { return 32 + 64*n }

// tokenBound is the most tokens a call can cost: one per byte of the
// messages (a byte-level tokenizer never uses more), a few per message for
// the chat format, and the answer's max_tokens.
func tokenBound(req openai.ChatRequest) int64 {
	n := int64(req.MaxTokens) + 16
	for _, m := range req.Messages {
		n += int64(len(m.Content)) + 8
	}
	return n
}

// tokenGuess is a typical call's tokens: about 4 bytes a token for the
// prompt, half the answer's room.
func tokenGuess(req openai.ChatRequest) int64 {
	n := int64(req.MaxTokens)/2 + 16
	for _, m := range req.Messages {
		n += int64(len(m.Content))/4 + 8
	}
	return n
}

// truncate cuts s to at most n characters.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// cacheKeys returns each pair's cache key.
func (j *Judge) cacheKeys(pairs []judge.Pair) []string {
	keys := make([]string, len(pairs))
	for i, p := range pairs {
		q := p.QueryText
		if c, ok := j.cfg.Contexts[p.Query]; ok && j.cfg.Prompt.UsesContext() {
			// The same query text with another context is another prompt.
			q += "\x00" + c.Category + "\x00" + c.Notes + "\x00" + c.Rubric + "\x00" + strings.Join(c.References, "\x00")
		}
		keys[i] = labels.CacheKey(q, truncate(p.DocTitle, j.cfg.MaxDocChars)+"\x00"+truncate(p.DocText, j.cfg.MaxDocChars), j.cfg.Model, j.hash)
	}
	return keys
}

// lookup returns the cached answers by pair index.
func (j *Judge) lookup(ctx context.Context, pairs []judge.Pair) (map[int]labels.CacheEntry, []string, error) {
	keys := j.cacheKeys(pairs)
	out := map[int]labels.CacheEntry{}
	if j.cfg.Store == nil || j.cfg.Fresh {
		return out, keys, nil
	}
	got, err := j.cfg.Store.CacheLookup(ctx, keys)
	if err != nil {
		return nil, nil, fmt.Errorf("llm judge: %w", err)
	}
	for i, k := range keys {
		if e, ok := got[k]; ok {
			out[i] = e
		}
	}
	return out, keys, nil
}

// Estimate is what judging pairs would cost (Judge.Estimate).
type Estimate struct {
	// Pairs to judge; Cached of them answered by the cache.
	Pairs, Cached int
	// Calls is the number of requests without retries.
	Calls int
	// TokensBound is the most tokens the calls can cost (what the budget
	// reserves); TokensGuess a typical cost (about 4 bytes a token).
	TokensBound, TokensGuess int64
}

// Estimate returns the cost of judging pairs without calling the model
// (the cache is read).
func (j *Judge) Estimate(ctx context.Context, pairs []judge.Pair) (Estimate, error) {
	cached, _, err := j.lookup(ctx, pairs)
	if err != nil {
		return Estimate{}, err
	}
	e := Estimate{Pairs: len(pairs), Cached: len(cached)}
	isCached := map[int]bool{}
	for i := range cached {
		isCached[i] = true
	}
	for _, b := range j.plan(pairs, isCached) {
		req, _, bound, err := j.request(pairs, b)
		if err != nil {
			return Estimate{}, err
		}
		e.Calls++
		e.TokensBound += bound
		e.TokensGuess += tokenGuess(req)
	}
	return e, nil
}

// Judge grades pairs: cached answers first, then the rest in batches, at
// most Concurrency calls at once. The labels come in pair order. When the
// budget runs out the error wraps ErrBudget and the labels judged so far
// are returned; on another error (a call that failed after its retries, an
// answer that is not the JSON asked for) no new call starts, the calls
// under way finish, and the labels judged so far are returned with the
// errors. Every answer is cached as it arrives.
func (j *Judge) Judge(ctx context.Context, pairs []judge.Pair) ([]labels.Label, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	cached, keys, err := j.lookup(ctx, pairs)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	results := make([]*labels.Label, len(pairs))
	isCached := map[int]bool{}
	for i, e := range cached {
		isCached[i] = true
		results[i] = j.label(pairs[i], e.Grade, e.Rationale, e.Confidence, now)
	}
	j.mu.Lock()
	j.hits += len(cached)
	j.mu.Unlock()

	batches := j.plan(pairs, isCached)
	errs, skips := j.runBatches(ctx, pairs, keys, batches, results)
	var out []labels.Label
	for _, l := range results {
		if l != nil {
			out = append(out, *l)
		}
	}
	j.mu.Lock()
	j.skips = append(j.skips, skips...)
	j.meter.mu.Lock()
	j.meter.used.Labels += len(out)
	j.meter.mu.Unlock()
	j.mu.Unlock()
	if len(errs) == 0 {
		if ctx.Err() != nil {
			return out, fmt.Errorf("llm judge %s: %d of %d pairs judged: %w", j.Name(), len(out), len(pairs), context.Cause(ctx))
		}
		if len(out) == 0 && len(skips) > 0 {
			// Every answer malformed: the prompt and the model do not fit.
			return nil, fmt.Errorf("llm judge %s: no pair judged: every answer was malformed after %d attempts: %w", j.Name(), j.cfg.AnswerRetries+1, skips[0].Err)
		}
		return out, nil
	}
	return out, fmt.Errorf("llm judge %s: %d of %d pairs judged: %w", j.Name(), len(out), len(pairs), errors.Join(budgetFirst(errs)...))
}

// runBatches judges the batches, at most Concurrency calls at once,
// storing each label in results at its pair's index, and returns the
// calls' errors and the batches skipped for answers still malformed
// after their retries. A failure stops new calls; the calls under way
// finish (their tokens are spent: their answers are kept). So does ctx's
// end. A skipped batch does not stop the others.
func (j *Judge) runBatches(ctx context.Context, pairs []judge.Pair, keys []string, batches []batch, results []*labels.Label) ([]error, []Skip) {
	work := make(chan batch)
	stop := make(chan struct{})
	var (
		mu       sync.Mutex
		errs     []error
		skips    []Skip
		wg       sync.WaitGroup
		stopOnce sync.Once
	)
	for range min(j.cfg.Concurrency, len(batches)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				got, skip, err := j.judgeBatch(ctx, pairs, keys, b)
				mu.Lock()
				if skip != nil {
					skips = append(skips, *skip)
				}
				if err != nil {
					errs = append(errs, err)
					stopOnce.Do(func() { close(stop) })
				}
				for i, l := range got {
					results[i] = l
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, b := range batches {
		select {
		case work <- b:
		case <-stop:
			break feed
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	slices.SortFunc(skips, func(a, b Skip) int { return cmp.Or(cmp.Compare(a.Query, b.Query), slices.Compare(a.Docs, b.Docs)) })
	return errs, skips
}

// budgetFirst is errs with the first budget error (ErrBudget) first, the
// other budget errors dropped, the rest in order: callers branch on it.
func budgetFirst(errs []error) []error {
	var budget, other []error
	for _, e := range errs {
		if errors.Is(e, ErrBudget) {
			budget = append(budget, e)
		} else {
			other = append(other, e)
		}
	}
	if len(budget) > 0 {
		other = append([]error{budget[0]}, other...)
	}
	return other
}

// judgeBatch makes b's call, parses the answer and caches it. A
// malformed answer is asked again up to AnswerRetries times, after a
// backoff, with a note saying what was wrong; when it is still malformed
// the batch is skipped (skip says why; no label, nothing cached).
func (j *Judge) judgeBatch(ctx context.Context, pairs []judge.Pair, keys []string, b batch) (map[int]*labels.Label, *Skip, error) {
	req, ids, bound, err := j.request(pairs, b)
	if err != nil {
		return nil, nil, err
	}
	q := pairs[b.idx[0]].Query
	short := make([]string, 0, len(ids))
	for n := range len(ids) {
		short = append(short, fmt.Sprintf("D%d", n+1))
	}
	var grades map[string]grading
	for attempt := 0; ; attempt++ {
		c, err := j.call(ctx, req, bound)
		if err == nil {
			if grades, err = parseAnswer(c.content, short, j.cfg.Prompt); err == nil {
				break
			}
			err = fmt.Errorf("%w; the answer began %s", err, excerpt(j.redact(c.content)))
		}
		if !errors.Is(err, ErrBadAnswer) {
			return nil, nil, fmt.Errorf("query %q (%d documents): %w", q, len(b.idx), err)
		}
		err = fmt.Errorf("query %q (%d documents): %w", q, len(b.idx), err)
		if attempt >= j.cfg.AnswerRetries {
			return nil, j.skip(pairs, b, attempt+1, err), nil
		}
		if werr := wait(ctx, min(j.cfg.Backoff<<attempt, j.cfg.Backoff<<5)); werr != nil {
			return nil, nil, errors.Join(err, werr)
		}
		req = corrected(req, c.content, err, short)
		bound = tokenBound(req)
	}
	now := time.Now().UTC()
	out := map[int]*labels.Label{}
	var entries []labels.CacheEntry
	for id, g := range grades {
		i := ids[id]
		out[i] = j.label(pairs[i], g.Grade, g.Reason, g.Confidence, now)
		entries = append(entries, labels.CacheEntry{Key: keys[i], Model: j.cfg.Model, PromptHash: j.hash,
			Grade: g.Grade, Rationale: g.Reason, Confidence: g.Confidence, Time: now})
	}
	if j.cfg.Store != nil && !j.cfg.Fresh {
		if err := j.cfg.Store.CachePut(ctx, entries); err != nil {
			return nil, nil, fmt.Errorf("llm judge: %w", err)
		}
	}
	return out, nil, nil
}

func (j *Judge) label(p judge.Pair, grade int, reason string, conf float64, t time.Time) *labels.Label {
	return &labels.Label{Dataset: j.cfg.Dataset, Query: p.Query, Doc: p.Doc, Grade: grade, Judge: j.Name(),
		Source: labels.SourceLLM, Time: t, Rationale: reason, Confidence: conf}
}
