package weaviate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// Kind is backend.kind for this kind.
const Kind = "weaviate"

// Options configure the weaviate kind.
type Options struct {
	// Bin is a weaviate-server executable the kind starts and restarts
	// itself (depth changes need a restart), its data in the run's
	// directory. Either Bin or URL.
	Bin string
	// URL is a running server to use instead; its
	// QUERY_HYBRID_MAXIMUM_RESULTS must be MaxResults, which trials cannot
	// change.
	URL string
	// MaxResults is the running server's depth (URL only; 0: 100).
	MaxResults int
	// Corpus is the corpus file (BEIR corpus.jsonl or JSON lines).
	Corpus corpus.Config
	// Model is the embedder of documents and queries unless a trial sets
	// dense.model ("lsa-256", "hash-<dim>", "openai:<model>", "file:").
	Model string
	// Embed configures the embedders (API key, base URL, seed).
	Embed embed.Options
	// ClassPrefix starts the names of the classes the kind creates, one per
	// embedder (default "Fusiontune").
	ClassPrefix string
	// IndexType is the vector index, hnsw (default) or flat.
	IndexType string
	// K is the number of hits a search returns when the request names none
	// (default 10).
	K int
	// StartTimeout bounds a (re)start (default 2 minutes).
	StartTimeout time.Duration
	// Environ is the environment a server of Bin starts from
	// (ServerOptions.Environ).
	Environ []string
	// Class, when set, attaches the kind to this existing class of the
	// server at URL (attach.go): it is read and queried, never created,
	// changed or dropped; only query-time parameters are tuned. Corpus and
	// Model are then not needed.
	Class string
	// IDProperty is the attached class's property holding the document id
	// the golden set judges (default "doc_id").
	IDProperty string
	// QueryVectors makes the attached class's query vectors: an embedder
	// spec (openai:<model> through Embed's base URL, file:<path> of
	// {"query", "vector"} lines, lsa-/hash-<dim> fitted on Corpus), or ""
	// for the class's own vectorizer (hybrid with the query text alone).
	QueryVectors string
	// Settle is how long to wait after loading a class into a server
	// given by URL, which the kind cannot restart to flush the import
	// (see Backend.settle): the server's
	// PERSISTENCE_MEMTABLES_FLUSH_DIRTY_AFTER_SECONDS and a margin. 0 only
	// warns.
	Settle time.Duration
}

// Factory is the weaviate backend kind.
type Factory struct{ o Options }

var (
	_ backend.Factory   = (*Factory)(nil)
	_ backend.Backend   = (*Backend)(nil)
	_ backend.Restarter = (*Backend)(nil)
)

// New checks o and returns the kind's factory.
func New(o Options) (*Factory, error) {
	if o.Class != "" {
		return newAttached(o)
	}
	var probs []string
	if (o.Bin == "") == (o.URL == "") {
		probs = append(probs, "give exactly one of bin (a weaviate-server the kind starts) and url (a running server)")
	}
	if o.Corpus.Path == "" {
		probs = append(probs, "corpus: required")
	}
	if o.Model == "" {
		probs = append(probs, "model: required (the embedder of documents and queries, e.g. lsa-256)")
	}
	if o.IndexType != "" && o.IndexType != "hnsw" && o.IndexType != "flat" {
		probs = append(probs, fmt.Sprintf("index_type: want hnsw or flat (got %q)", o.IndexType))
	}
	if o.Settle < 0 {
		probs = append(probs, fmt.Sprintf("settle: want >= 0 (got %v)", o.Settle))
	}
	if o.MaxResults < 0 || o.MaxResults > MaxMaxResults {
		probs = append(probs, fmt.Sprintf("max_results: want 0 to %d (got %d)", MaxMaxResults, o.MaxResults))
	}
	if o.URL != "" {
		if msg := URLProblem(o.URL); msg != "" {
			probs = append(probs, "url: "+msg)
		}
	}
	if o.Bin != "" {
		if _, err := exec.LookPath(o.Bin); err != nil {
			probs = append(probs, fmt.Sprintf("bin: %v: %v (install it with go install github.com/weaviate/weaviate/cmd/weaviate-server@v1.35.2, or give url)", ErrNoBinary, err))
		}
	}
	if msg := ClassPrefixProblem(o.ClassPrefix); msg != "" {
		probs = append(probs, "class_prefix: "+msg)
	}
	if len(probs) > 0 {
		return nil, fmt.Errorf("weaviate: %s", strings.Join(probs, "; "))
	}
	if o.ClassPrefix == "" {
		o.ClassPrefix = "Fusiontune"
	}
	o.searchDefaults()
	return &Factory{o: o}, nil
}

// searchDefaults fills the search settings left unset, in both modes:
// max_results DefaultMaxResults, k 10.
func (o *Options) searchDefaults() {
	if o.MaxResults == 0 {
		o.MaxResults = DefaultMaxResults
	}
	if o.K <= 0 {
		o.K = 10
	}
}

// URLProblem says what is wrong with a running server's URL, or "": an
// http:// or https:// URL with a host and no credentials (the URL is
// printed in errors and logs).
func URLProblem(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		if err == nil && u.User != nil {
			raw = u.Redacted()
		}
		return fmt.Sprintf("want an http:// or https:// URL such as http://127.0.0.1:8080 (got %q)", raw)
	}
	if u.User != nil {
		return "a URL with credentials (user:password@): the kind sends none"
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Sprintf("port must be a number from 1 to 65535 (got %q)", p)
		}
	}
	return ""
}

// classPrefix is what a class name may start with: a GraphQL name with an
// upper-case first letter (Weaviate capitalizes class names), short enough
// for the suffixes the kind adds.
var classPrefix = regexp.MustCompile(`^[A-Z][A-Za-z0-9_]{0,63}$`)

// ClassPrefixProblem says what is wrong with a class prefix, or "" ("" is
// the default prefix). The prefix is written into GraphQL queries, so it
// may hold nothing but a name's characters.
func ClassPrefixProblem(p string) string {
	if p == "" || classPrefix.MatchString(p) {
		return ""
	}
	return fmt.Sprintf("want an upper-case letter then up to 63 letters, digits or _, e.g. Fusiontune (got %q)", p)
}

// Check returns nil when Translate accepts params and, on a server the
// kind does not start, the depth is the server's.
func (f *Factory) Check(params map[string]any) error {
	if f.o.Class != "" {
		_, err := f.attachedTrial(params)
		return err
	}
	t, err := Translate(params)
	if err != nil {
		return err
	}
	if f.o.URL != "" && t.MaxResults != f.o.MaxResults {
		return fmt.Errorf("depth: the server at %s runs with QUERY_HYBRID_MAXIMUM_RESULTS=%d and the kind cannot restart it (got %d; set bin to let the kind manage the server)", f.o.URL, f.o.MaxResults, t.MaxResults)
	}
	return nil
}

// Describe returns the trial as Weaviate runs it (JSON of Trial, the
// class and the corpus loaded into it), or why it cannot.
func (f *Factory) Describe(params map[string]any) string {
	if f.o.Class != "" {
		return f.describeAttached(params)
	}
	t, err := Translate(params)
	if err != nil {
		return "translate error: " + err.Error()
	}
	if t.Model == "" {
		t.Model = f.o.Model
	}
	b, _ := json.Marshal(described{t, f.ClassName(t.Model), f.o.Corpus.Path})
	return string(b)
}

// described is a trial's recorded config (Describe).
type described struct {
	Trial
	Class  string `json:"class"`
	Corpus string `json:"corpus"`
}

// ClassName returns the class holding the corpus embedded by model: the
// prefix and a short hash of the model spec (class names are
// capitalized GraphQL names).
func (f *Factory) ClassName(model string) string {
	sum := sha256.Sum256([]byte(model))
	return f.o.ClassPrefix + "_" + hex.EncodeToString(sum[:])[:10]
}

// Open starts (Bin) or reaches (URL) the server; classes are created and
// loaded by Apply, on a trial's first use of an embedder.
func (f *Factory) Open(dir string, log io.Writer) (backend.Backend, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("weaviate: %w", err)
	}
	if log == nil {
		log = io.Discard
	}
	b := &Backend{f: f, log: log, classes: map[string]*class{}, depth: f.o.MaxResults}
	ctx := context.Background()
	if f.o.Bin != "" {
		slog, err := os.Create(filepath.Join(dir, "weaviate.log"))
		if err != nil {
			return nil, fmt.Errorf("weaviate: %w", err)
		}
		start := time.Now()
		s, err := StartServer(ctx, ServerOptions{Bin: f.o.Bin, DataDir: filepath.Join(dir, "weaviate-data"),
			MaxResults: b.depth, Log: slog, StartTimeout: f.o.StartTimeout, Environ: f.o.Environ})
		if err != nil {
			_ = slog.Close()
			return nil, err
		}
		fmt.Fprintf(log, "weaviate: started %s on %s in %v (QUERY_HYBRID_MAXIMUM_RESULTS=%d)\n", f.o.Bin, s.URL, time.Since(start).Round(time.Millisecond), b.depth)
		b.server, b.serverLog = s, slog
		b.client = NewClient(s.URL)
	} else {
		b.client = NewClient(f.o.URL)
		if err := b.client.Ready(ctx); err != nil {
			return nil, err
		}
		if f.o.Class != "" {
			if err := b.attach(ctx); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

// class is a loaded class and its embedder.
type class struct {
	name  string
	emb   embed.Embedder
	k1, b float64
}

// Backend is an open weaviate kind: a server, the classes it created and
// the applied trial.
type Backend struct {
	f         *Factory
	log       io.Writer
	server    *Server
	serverLog *os.File
	client    *Client

	mu      sync.Mutex
	classes map[string]*class // by model
	corpus  *corpus.Corpus
	trial   Trial
	cur     *class
	depth   int // the running server's QUERY_HYBRID_MAXIMUM_RESULTS
}

// Apply translates params, creates and loads the model's class when new
// (the tuner's embedder on every document), sets its BM25 k1 and b, and
// records the depth for Restart.
func (b *Backend) Apply(ctx context.Context, params map[string]any) error {
	if b.f.o.Class != "" {
		return b.applyAttached(params)
	}
	t, err := Translate(params)
	if err != nil {
		return err
	}
	if t.Model == "" {
		t.Model = b.f.o.Model
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	cl, ok := b.classes[t.Model]
	if !ok {
		if cl, err = b.load(ctx, t, b.f.ClassName(t.Model)); err != nil {
			return err
		}
		b.classes[t.Model] = cl
	}
	if cl.k1 != t.K1 || cl.b != t.B {
		if err := b.client.SetBM25(ctx, cl.name, t.K1, t.B); err != nil {
			return err
		}
		cl.k1, cl.b = t.K1, t.B
	}
	b.trial, b.cur = t, cl
	return nil
}

// embedder returns the corpus's index texts, their document ids and
// t.Model's embedder fitted on them.
func (b *Backend) embedder(ctx context.Context, t Trial) ([]string, []string, embed.Embedder, error) {
	if b.corpus == nil {
		c, err := corpus.Load(b.f.o.Corpus)
		if err != nil {
			return nil, nil, nil, err
		}
		b.corpus = c
	}
	// The embedded engine's index texts (title, blank line, text) and its
	// embedder fitted on them: the same vectors tune serve would search.
	chunks, texts, err := corpus.IndexTexts(b.corpus.Docs, corpus.ChunkConfig{})
	if err != nil {
		return nil, nil, nil, err
	}
	ids := make([]string, len(chunks))
	for i, c := range chunks {
		ids[i] = c.DocID
	}
	emb, err := embed.ForQueries(ctx, t.Model, b.f.o.Embed, texts)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("weaviate: embedder %s: %w", t.Model, err)
	}
	return ids, texts, emb, nil
}

// load creates the class name for t.Model (dropping one of that name)
// and loads the corpus into it.
func (b *Backend) load(ctx context.Context, t Trial, name string) (*class, error) {
	start := time.Now()
	ids, texts, emb, err := b.embedder(ctx, t)
	if err != nil {
		return nil, err
	}
	vecs, err := emb.EmbedDocuments(ctx, ids, texts)
	if err != nil {
		return nil, fmt.Errorf("weaviate: embed documents with %s: %w", t.Model, err)
	}
	embedded := time.Since(start)
	if err := b.client.DeleteClass(ctx, name); err != nil {
		return nil, err
	}
	if err := b.client.CreateClass(ctx, ClassConfig{Name: name, K1: t.K1, B: t.B, IndexType: b.f.o.IndexType}); err != nil {
		return nil, err
	}
	objs := make([]Object, len(ids))
	for i := range ids {
		objs[i] = Object{DocID: ids[i], Text: texts[i], Vector: vecs[i]}
	}
	if err := b.client.Load(ctx, name, objs, 500); err != nil {
		return nil, err
	}
	fmt.Fprintf(b.log, "weaviate: class %s: %d documents embedded with %s in %v, loaded in %v\n", name, len(objs), t.Model,
		embedded.Round(time.Millisecond), (time.Since(start) - embedded).Round(time.Millisecond))
	if err := b.settle(ctx); err != nil {
		return nil, err
	}
	return &class{name: name, emb: emb, k1: t.K1, b: t.B}, nil
}

// settle makes a freshly loaded class answer as it will from then on.
// Right after a batch import Weaviate (v1.35.2) scores BM25 from
// statistics that still change when its memtables are flushed to disk
// segments (after PERSISTENCE_MEMTABLES_FLUSH_DIRTY_AFTER_SECONDS, 60 s by
// default, or at shutdown): on SciFact 24 of the first 300 queries ranked
// differently in the minute after the load. A server the kind started is
// restarted, which flushes everything; a server given by URL cannot be,
// so the kind waits Options.Settle (backend.settle) for the flush, or
// warns when that is 0.
func (b *Backend) settle(ctx context.Context) error {
	if b.server == nil {
		if b.f.o.Settle <= 0 {
			fmt.Fprintf(b.log, "weaviate: warning: BM25 scores of a fresh import change once the server flushes its memtables (PERSISTENCE_MEMTABLES_FLUSH_DIRTY_AFTER_SECONDS); set backend.settle to that plus a few seconds, or restart the server before trusting the first minute of results\n")
			return nil
		}
		fmt.Fprintf(b.log, "weaviate: waiting %v (backend.settle) for the server to flush the import\n", b.f.o.Settle)
		select {
		case <-time.After(b.f.o.Settle):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	start := time.Now()
	if err := b.server.Restart(ctx, b.depth); err != nil {
		return err
	}
	b.client = NewClient(b.server.URL)
	fmt.Fprintf(b.log, "weaviate: restarted to flush the import in %v\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// NeedsRestart reports whether the applied depth differs from the
// running server's.
func (b *Backend) NeedsRestart() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.server != nil && b.trial.MaxResults != 0 && b.trial.MaxResults != b.depth
}

// Restart restarts a server the kind started with the applied depth as
// QUERY_HYBRID_MAXIMUM_RESULTS (a no-op when it is already that); on a
// server given by URL it does nothing (Check keeps the depth).
func (b *Backend) Restart(ctx context.Context) error {
	if !b.NeedsRestart() {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	start := time.Now()
	if err := b.server.Restart(ctx, b.trial.MaxResults); err != nil {
		return err
	}
	b.depth = b.trial.MaxResults
	b.client = NewClient(b.server.URL)
	fmt.Fprintf(b.log, "weaviate: restarted with QUERY_HYBRID_MAXIMUM_RESULTS=%d in %v\n", b.depth, time.Since(start).Round(time.Millisecond))
	return nil
}

// Ready returns nil when the server answers.
func (b *Backend) Ready(ctx context.Context) error {
	b.mu.Lock()
	c, s := b.client, b.server
	b.mu.Unlock()
	if s != nil && s.Exited() {
		return fmt.Errorf("weaviate: %w", backend.ErrServiceExited)
	}
	return c.Ready(ctx)
}

// Search runs the applied trial's hybrid query, its alpha and fusionType
// overridden by req.Fusion (TrialOf), and one more for each of
// req.Variants (SearchResponse.Variants); with Explain it also
// issues each leg alone at the depth and returns them as the candidates
// "bm25" (BM25 scores) and "dense" (1 - distance), Candidate.ID the
// object's UUID, the lists fusion.WeaviateHybrid fuses offline.
func (b *Backend) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	b.mu.Lock()
	t, cl, c, depth := b.trial, b.cur, b.client, b.depth
	applied := t
	s := b.server
	b.mu.Unlock()
	var err error
	if cl == nil {
		return backend.SearchResponse{}, errors.New("weaviate: search before apply")
	}
	k := req.K
	if k <= 0 {
		k = b.f.o.K
	}
	collect := depth // the legs' depth with Explain (a collection may ask deeper)
	if req.Fusion != nil && req.Explain && req.Fusion.Method == "" && len(req.Fusion.Weights) == 0 {
		// The tuner's collection: only the depth, which the legs issued
		// alone can reach; the hybrid query keeps the server's.
		collect = max(depth, req.Fusion.Depth)
	} else if t, err = TrialOf(t, req.Fusion); err != nil {
		return backend.SearchResponse{}, err
	}
	var vec []float32 // nil: the class's vectorizer embeds the query text
	if cl.emb != nil {
		if vec, err = cl.emb.EmbedQuery(ctx, req.Query); err != nil {
			return backend.SearchResponse{}, fmt.Errorf("weaviate: embed query: %w", err)
		}
	}
	hits, err := c.Hybrid(ctx, HybridQuery{Class: cl.name, Query: req.Query, Vector: vec, Alpha: t.Alpha, FusionType: t.FusionType, Limit: k})
	if err != nil {
		if s != nil && s.Exited() {
			err = fmt.Errorf("%w: %w", err, backend.ErrServiceExited)
		}
		return backend.SearchResponse{}, err
	}
	resp := backend.SearchResponse{Hits: toHits(hits), Routing: fusion.Routing(len(hits))}
	// Weaviate takes alpha and fusionType per request: each variant is
	// one more hybrid query on the same class (a verification pass of
	// several trials).
	for i := range req.Variants {
		vt, err := TrialOf(applied, &req.Variants[i])
		if err != nil {
			return backend.SearchResponse{}, fmt.Errorf("variant %d: %w", i+1, err)
		}
		vh, err := c.Hybrid(ctx, HybridQuery{Class: cl.name, Query: req.Query, Vector: vec, Alpha: vt.Alpha, FusionType: vt.FusionType, Limit: k})
		if err != nil {
			return backend.SearchResponse{}, err
		}
		resp.Variants = append(resp.Variants, backend.Variant{Hits: toHits(vh), Routing: fusion.Routing(len(vh))})
	}
	if req.Explain {
		d := max(collect, k) // Weaviate's leg depth: max(QUERY_HYBRID_MAXIMUM_RESULTS, limit)
		kw, err := c.BM25(ctx, cl.name, req.Query, d)
		if err != nil {
			return backend.SearchResponse{}, err
		}
		var nv []Hit
		if vec != nil {
			nv, err = c.NearVector(ctx, cl.name, vec, d)
		} else {
			nv, err = c.NearText(ctx, cl.name, req.Query, d)
		}
		if err != nil {
			return backend.SearchResponse{}, err
		}
		resp.Candidates = map[string][]fusion.Candidate{"bm25": Candidates(kw), "dense": Candidates(nv)}
	}
	return resp, nil
}

// toHits are a query's hits as the backend returns them.
func toHits(hits []Hit) []backend.Hit {
	out := make([]backend.Hit, len(hits))
	for i, h := range hits {
		out[i] = backend.Hit{DocID: h.DocID, Score: h.Score}
	}
	return out
}

// Candidates turns a leg's hits into fusion candidates for
// fusion.WeaviateHybrid: ID the object's UUID, DocID the document.
func Candidates(hits []Hit) []fusion.Candidate {
	out := make([]fusion.Candidate, len(hits))
	for i, h := range hits {
		out[i] = fusion.Candidate{ID: h.UUID, DocID: h.DocID, Score: h.Score, Rank: i + 1}
	}
	return out
}

// Replay fuses a query's legs, as Search's Explain returns them, under
// trial t exactly as Weaviate would answer a hybrid query of limit k at
// the legs' depth.
func Replay(legs map[string][]fusion.Candidate, t Trial, k int) []fusion.Result {
	r := fusion.WeaviateHybrid(t.FusionType, t.Alpha, legs["dense"], legs["bm25"])
	if len(r) > k {
		r = r[:k]
	}
	return r
}

// Close drops the classes the kind created and stops a server it started.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	var errs []error
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, cl := range b.classes {
		if err := b.client.DeleteClass(ctx, cl.name); err != nil {
			errs = append(errs, err)
		}
	}
	b.classes = map[string]*class{}
	if b.server != nil {
		errs = append(errs, b.server.Stop())
		if b.serverLog != nil {
			errs = append(errs, b.serverLog.Close())
		}
	}
	return errors.Join(errs...)
}
