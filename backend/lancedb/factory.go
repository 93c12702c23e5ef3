package lancedb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// Kind is backend.kind for this kind.
const Kind = "lancedb"

// Distance types of the vector leg (LanceDB's distanceType).
var Distances = []string{"l2", "cosine", "dot"}

// Options configure the lancedb kind. Table set means attach mode (the
// user's dataset, never changed); unset, sandbox mode (the kind builds a
// table per embedder in the run's directory).
type Options struct {
	// Node is the node executable (default "node").
	Node string
	// Sidecar is the sidecar's directory: server.mjs with node_modules
	// installed by npm ci (backend/lancedb/sidecar).
	Sidecar string
	// URI is the attached LanceDB database: a directory (attach mode).
	URI string
	// Table is the attached table (attach mode).
	Table string
	// IDColumn, TextColumn and VectorColumn name the attached table's
	// document id, FTS-indexed text and vector columns (defaults id, text,
	// vector).
	IDColumn, TextColumn, VectorColumn string
	// Distance is the vector leg's distance type: l2, cosine or dot
	// (default: cosine in sandbox mode, l2, LanceDB's default, in attach
	// mode).
	Distance string
	// Corpus is the corpus a sandbox table is built from.
	Corpus corpus.Config
	// Model embeds the queries (both modes) and the documents (sandbox
	// mode) unless a trial sets dense.model: "lsa-256", "hash-<dim>",
	// "openai:<model>", "file:<path>". In attach mode it must be the
	// model that made the table's vectors (openai:, or file: with the
	// query vectors).
	Model string
	// Embed configures the embedders (API key, base URL, seed).
	Embed embed.Options
	// K is the number of hits a search returns when the request names none
	// (default 10).
	K int
	// StartTimeout bounds the sidecar's start (default 1 minute).
	StartTimeout time.Duration
	// Environ is the environment the sidecar starts from.
	Environ []string
}

// Attach reports whether o attaches to the user's table.
func (o Options) Attach() bool { return o.Table != "" }

// Factory is the lancedb backend kind.
type Factory struct{ o Options }

var (
	_ backend.Factory        = (*Factory)(nil)
	_ backend.Backend        = (*Backend)(nil)
	_ backend.FusionResolver = (*Factory)(nil)
)

// New checks o, listing every problem at once, and returns the kind's
// factory.
func New(o Options) (*Factory, error) {
	var probs []string
	if o.Sidecar == "" {
		probs = append(probs, "sidecar: required (the kind's sidecar directory, backend/lancedb/sidecar, after npm ci)")
	} else if err := CheckSidecarDir(o.Sidecar); err != nil {
		probs = append(probs, err.Error())
	}
	if o.Model == "" {
		probs = append(probs, "model: required (the embedder of the queries, e.g. lsa-256)")
	}
	if o.Distance != "" && !contains(Distances, o.Distance) {
		probs = append(probs, fmt.Sprintf("distance: want %s (got %q)", strings.Join(Distances, ", "), o.Distance))
	}
	if o.Attach() {
		if o.URI == "" {
			probs = append(probs, "uri: required with table (the LanceDB database directory holding it)")
		}
	} else {
		if o.URI != "" {
			probs = append(probs, "uri: only with table (attach mode); a sandbox lives in the run's directory")
		}
		if o.Corpus.Path == "" {
			probs = append(probs, "corpus: required without table (the sandbox's documents)")
		}
	}
	if len(probs) > 0 {
		return nil, fmt.Errorf("lancedb: %s", strings.Join(probs, "; "))
	}
	if o.IDColumn == "" {
		o.IDColumn = "id"
	}
	if o.TextColumn == "" {
		o.TextColumn = "text"
	}
	if o.VectorColumn == "" {
		o.VectorColumn = "vector"
	}
	if o.Distance == "" {
		o.Distance = "cosine"
		if o.Attach() {
			o.Distance = "l2"
		}
	}
	if o.K <= 0 {
		o.K = 10
	}
	return &Factory{o: o}, nil
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }

// trial translates params and checks them against the mode.
func (f *Factory) trial(params map[string]any) (Trial, error) {
	t, err := Translate(params)
	if err != nil {
		return Trial{}, err
	}
	if f.o.Attach() && t.Model != "" && t.Model != f.o.Model {
		return Trial{}, fmt.Errorf("%s: the attached table's vectors are its own: the query embedder is backend.lancedb.model (%s) and a trial cannot change it", backend.ParamDenseModel, f.o.Model)
	}
	if t.Model == "" {
		t.Model = f.o.Model
	}
	return t, nil
}

// Check returns nil when Translate accepts params for the kind's mode.
func (f *Factory) Check(params map[string]any) error {
	_, err := f.trial(params)
	return err
}

// Config is a trial's recorded config (Describe) and the production
// config a promotion installs: the query parameters and where they run.
type Config struct {
	Trial
	// Mode is sandbox or attach.
	Mode string `json:"mode"`
	// Table is the table queried (a sandbox table's name in the run).
	Table string `json:"table"`
	// URI is the attached database ("" in sandbox mode).
	URI string `json:"uri,omitempty"`
	// Columns queried: id, FTS-indexed text, vector.
	IDColumn     string `json:"id_column"`
	TextColumn   string `json:"text_column"`
	VectorColumn string `json:"vector_column"`
	// Distance is the vector leg's distance type.
	Distance string `json:"distance"`
	// Corpus is a sandbox's corpus ("" in attach mode).
	Corpus string `json:"corpus,omitempty"`
}

// config returns t's Config.
func (f *Factory) config(t Trial) Config {
	c := Config{Trial: t, Mode: "sandbox", IDColumn: f.o.IDColumn, TextColumn: f.o.TextColumn, VectorColumn: f.o.VectorColumn, Distance: f.o.Distance}
	if f.o.Attach() {
		c.Mode, c.Table, c.URI = "attach", f.o.Table, f.o.URI
	} else {
		c.Table, c.Corpus = f.TableName(t.Model), f.o.Corpus.Path
	}
	return c
}

// Describe returns the trial as LanceDB runs it (JSON of Config), or why
// it cannot.
func (f *Factory) Describe(params map[string]any) string {
	t, err := f.trial(params)
	if err != nil {
		return "translate error: " + err.Error()
	}
	b, _ := json.Marshal(f.config(t))
	return string(b)
}

// Fusion returns a trial's query-time settings for the tuner's replay
// (Trial.Settings, under fusion.FormulaLanceDB).
func (f *Factory) Fusion(params map[string]any) (fusion.Settings, error) {
	t, err := f.trial(params)
	if err != nil {
		return fusion.Settings{}, err
	}
	return t.Settings(), nil
}

// TableName returns the sandbox table of the corpus embedded by model:
// "fusiontune_" and a short hash of the model spec.
func (f *Factory) TableName(model string) string {
	sum := sha256.Sum256([]byte(model))
	return "fusiontune_" + hex.EncodeToString(sum[:])[:10]
}

// Open starts the sidecar with its files in dir and, in attach mode,
// checks the user's table; sandbox tables are built by Apply, on a
// trial's first use of an embedder.
func (f *Factory) Open(dir string, log io.Writer) (backend.Backend, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lancedb: %w", err)
	}
	if log == nil {
		log = io.Discard
	}
	slog, err := os.Create(filepath.Join(dir, "lancedb-sidecar.log"))
	if err != nil {
		return nil, fmt.Errorf("lancedb: %w", err)
	}
	ctx := context.Background()
	start := time.Now()
	s, err := StartSidecar(ctx, SidecarOptions{Node: f.o.Node, Dir: f.o.Sidecar, Log: slog, Environ: f.o.Environ, StartTimeout: f.o.StartTimeout})
	if err != nil {
		_ = slog.Close()
		return nil, err
	}
	fmt.Fprintf(log, "lancedb: sidecar started on %s in %v\n", s.URL, time.Since(start).Round(time.Millisecond))
	b := &Backend{f: f, log: log, sidecar: s, sidecarLog: slog, client: NewClient(s.URL), tables: map[string]*table{},
		uri: filepath.Join(dir, "lancedb")}
	if f.o.Attach() {
		b.uri = f.o.URI
		if err := b.attach(ctx); err != nil {
			_ = b.Close()
			return nil, err
		}
	}
	return b, nil
}

// table is a queryable table and its query embedder.
type table struct {
	Table
	emb embed.Embedder
}

// Backend is an open lancedb kind: the sidecar, its tables and the
// applied trial.
type Backend struct {
	f          *Factory
	log        io.Writer
	sidecar    *Sidecar
	sidecarLog *os.File
	client     *Client
	uri        string // the database: the run's sandbox or the attached one

	warnEmpty atomic.Bool // the empty-leg fallback was logged

	mu     sync.Mutex
	tables map[string]*table // by model
	corpus *corpus.Corpus
	trial  Trial
	cur    *table
}

// attach checks the user's table and makes the query embedder.
func (b *Backend) attach(ctx context.Context) error {
	o := b.f.o
	t := Table{URI: o.URI, Name: o.Table, ID: o.IDColumn, Text: o.TextColumn, Vector: o.VectorColumn}
	dim, err := b.client.Open(ctx, t)
	if err != nil {
		return err
	}
	emb, err := embed.New(o.Model, o.Embed)
	if err != nil {
		return fmt.Errorf("lancedb: query embedder %s: %w", o.Model, err)
	}
	if d := emb.Dim(); d > 0 && dim > 0 && d != dim {
		return fmt.Errorf("lancedb: query embedder %s makes %d-dimensional vectors; column %q holds %d", o.Model, d, o.VectorColumn, dim)
	}
	fmt.Fprintf(b.log, "lancedb: attached to table %s in %s (vector column %s, %d dimensions; distance %s)\n", o.Table, o.URI, o.VectorColumn, dim, o.Distance)
	b.tables[o.Model] = &table{Table: t, emb: emb}
	return nil
}

// Apply translates params and, in sandbox mode, builds the model's table
// when new (the tuner's embedder on every document, an FTS index on the
// text).
func (b *Backend) Apply(ctx context.Context, params map[string]any) error {
	t, err := b.f.trial(params)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	tb, ok := b.tables[t.Model]
	if !ok {
		if tb, err = b.load(ctx, t.Model); err != nil {
			return err
		}
		b.tables[t.Model] = tb
	}
	b.trial, b.cur = t, tb
	return nil
}

// load builds the sandbox table of model.
func (b *Backend) load(ctx context.Context, model string) (*table, error) {
	start := time.Now()
	if b.corpus == nil {
		c, err := corpus.Load(b.f.o.Corpus)
		if err != nil {
			return nil, err
		}
		b.corpus = c
	}
	// The embedded engine's index texts (title, blank line, text) and its
	// embedder fitted on them: the same vectors tune serve would search.
	chunks, texts, err := corpus.IndexTexts(b.corpus.Docs, corpus.ChunkConfig{})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(chunks))
	for i, c := range chunks {
		ids[i] = c.DocID
	}
	emb, err := embed.ForQueries(ctx, model, b.f.o.Embed, texts)
	if err != nil {
		return nil, fmt.Errorf("lancedb: embedder %s: %w", model, err)
	}
	vecs, err := emb.EmbedDocuments(ctx, ids, texts)
	if err != nil {
		return nil, fmt.Errorf("lancedb: embed documents with %s: %w", model, err)
	}
	embedded := time.Since(start)
	rows := make([]Row, len(ids))
	for i := range ids {
		rows[i] = Row{ID: ids[i], Text: texts[i], Vector: vecs[i]}
	}
	t := Table{URI: b.uri, Name: b.f.TableName(model), ID: "id", Text: "text", Vector: "vector"}
	if err := b.client.Create(ctx, t, rows); err != nil {
		return nil, err
	}
	fmt.Fprintf(b.log, "lancedb: table %s: %d documents embedded with %s in %v, loaded and indexed in %v\n", t.Name, len(rows), model,
		embedded.Round(time.Millisecond), (time.Since(start) - embedded).Round(time.Millisecond))
	return &table{Table: t, emb: emb}, nil
}

// Restart does nothing: every parameter is the request's.
func (b *Backend) Restart(context.Context) error { return nil }

// Ready returns nil when the sidecar answers.
func (b *Backend) Ready(ctx context.Context) error {
	if b.sidecar.Exited() {
		return fmt.Errorf("lancedb: %w", backend.ErrServiceExited)
	}
	return b.client.Ready(ctx)
}

// Search runs the applied trial's hybrid query (nearestTo the query's
// vector, fullTextSearch its text, RRFReranker k, limit), its k and depth
// overridden by req.Fusion (TrialOf), and returns its first req.K rows.
// With Explain it also runs each leg alone, as deep as the limit (or
// req.Fusion.Depth when the tuner collects lists), and returns
// them as the candidates "dense" (the vector leg, score -distance) and
// "bm25" (the full-text leg), Candidate.ID the row id: the lists
// fusion.LanceDBRRF fuses offline.
func (b *Backend) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	b.mu.Lock()
	t, tb := b.trial, b.cur
	b.mu.Unlock()
	if tb == nil {
		return backend.SearchResponse{}, errors.New("lancedb: search before apply")
	}
	k := req.K
	if k <= 0 {
		k = b.f.o.K
	}
	var err error
	legs := 0 // the legs' depth with Explain: the limit, or the tuner's collection depth
	if req.Fusion != nil && req.Explain && req.Fusion.Method == "" && req.Fusion.K == 0 && len(req.Fusion.Weights) == 0 {
		legs = req.Fusion.Depth // the tuner's collection: only the legs' depth
	} else if t, err = TrialOf(t, req.Fusion); err != nil {
		return backend.SearchResponse{}, err
	}
	if legs == 0 {
		legs = t.Limit
	}
	vec, err := tb.emb.EmbedQuery(ctx, req.Query)
	if err != nil {
		return backend.SearchResponse{}, fmt.Errorf("lancedb: embed query: %w", err)
	}
	q := Query{Table: tb.Table, Text: req.Query, Vector: vec, Limit: t.Limit, K: t.K, Distance: b.f.o.Distance, Hybrid: true,
		Legs: req.Explain && legs == t.Limit}
	a, err := b.client.Search(ctx, q)
	if err != nil {
		if b.sidecar.Exited() {
			err = fmt.Errorf("%w: %w", err, backend.ErrServiceExited)
		}
		return backend.SearchResponse{}, err
	}
	if a.Empty != "" {
		a.Hits = emptyLeg(a, t)
		if b.warnEmpty.CompareAndSwap(false, true) {
			fmt.Fprintf(b.log, "lancedb: LanceDB fails a hybrid query whose %s leg finds nothing (first: %q): such a query is answered by the other leg fused alone (fusion.LanceDBRRF), as the replay ranks it\n", a.Empty, req.Query)
		}
	}
	if req.Explain && !q.Legs {
		q.Hybrid, q.Legs, q.Limit = false, true, legs
		l, err := b.client.Search(ctx, q)
		if err != nil {
			return backend.SearchResponse{}, err
		}
		a.Vector, a.FTS = l.Vector, l.FTS
	}
	hits := a.Hits[:min(k, len(a.Hits))]
	resp := backend.SearchResponse{Hits: make([]backend.Hit, len(hits)), Routing: fusion.Routing(len(hits))}
	for i, h := range hits {
		resp.Hits[i] = backend.Hit{DocID: h.ID, Score: h.Score}
	}
	if req.Explain {
		resp.Candidates = map[string][]fusion.Candidate{"dense": Candidates(a.Vector), "bm25": Candidates(a.FTS)}
	}
	return resp, nil
}

// emptyLeg is the answer to a query LanceDB fails because a leg found
// nothing: the legs fused by fusion.LanceDBRRF under t (the other leg
// alone), which is what the replay ranks.
func emptyLeg(a Answer, t Trial) []Hit {
	r := fusion.LanceDBRRF(Candidates(a.Vector), Candidates(a.FTS), float32(t.K), t.Limit)
	out := make([]Hit, len(r))
	for i, x := range r {
		out[i] = Hit{Row: x.ID, ID: x.DocID, Score: x.Score}
	}
	return out
}

// Close stops the sidecar. Sandbox tables live in the run's directory;
// an attached table was only read.
func (b *Backend) Close() error {
	var errs []error
	if b.sidecar != nil {
		errs = append(errs, b.sidecar.Stop())
	}
	if b.sidecarLog != nil {
		errs = append(errs, b.sidecarLog.Close())
	}
	return errors.Join(errs...)
}
