package weaviate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/internal/userfile"
)

// Production is the weaviate kind's production config (backend.config),
// the JSON file --apply-best and tune apply write and tune rollback
// restores. Weaviate keeps no hybrid-query defaults on the server, so the
// file is what the application reads to build its queries: the class to
// query, alpha and fusionType to send, and the embedder of its query
// vectors (model). A promotion also installs what does live on the server:
// it loads the class when it is missing (kept after the run) and sets its
// BM25 k1 and b; maxResults must be the server's
// QUERY_HYBRID_MAXIMUM_RESULTS, which the kind cannot change on a server
// it did not start.
type Production struct {
	// Class is ProductionClass(model): a class of its own, which sweeps
	// neither change nor drop.
	Class string `json:"class"`
	Trial
	// Corpus is the corpus file loaded into Class (absolute).
	Corpus string `json:"corpus"`
}

var className = regexp.MustCompile(`^[A-Z][_0-9A-Za-z]*$`)

// ProductionClass returns the class a promotion of model's trials
// installs: the prefix, "Prod_" and the model's hash; a sweep's classes
// (ClassName) are others, so a sweep on the production server leaves what
// the application queries alone.
func (f *Factory) ProductionClass(model string) string {
	return productionClass(f.o.ClassPrefix, model)
}

func productionClass(prefix, model string) string {
	if prefix == "" {
		prefix = "Fusiontune"
	}
	sum := sha256.Sum256([]byte(model))
	return prefix + "Prod_" + hex.EncodeToString(sum[:])[:10]
}

// ProductionFile turns a trial's recorded config (Describe's JSON) into
// the production config a promotion writes: the trial's settings with the
// production class (ProductionClass under classPrefix, "" for the
// default), indented, one field a line.
func ProductionFile(recorded []byte, classPrefix string) ([]byte, error) {
	if out, ok, err := attachedFile(recorded); ok {
		return out, err
	}
	var d described
	dec := json.NewDecoder(bytes.NewReader(recorded))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("weaviate: the trial's recorded config: %w", err)
	}
	if d.Model == "" || d.Corpus == "" {
		return nil, errors.New("weaviate: the trial's recorded config names no model or no corpus")
	}
	out, err := json.MarshalIndent(Production{Class: productionClass(classPrefix, d.Model), Trial: d.Trial, Corpus: d.Corpus}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// ReadProduction reads and checks a production config: every field
// present and in its range (those of Translate), naming the file.
func ReadProduction(path string) (Production, error) {
	data, err := userfile.Read(path, userfile.Default)
	if err != nil {
		return Production{}, fmt.Errorf("weaviate: production config: %w", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Production{}, fmt.Errorf("weaviate: %s: %w", path, err)
	}
	var missing []string
	for _, k := range []string{"class", "model", "alpha", "fusionType", "maxResults", "k1", "b", "corpus"} {
		if _, ok := raw[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return Production{}, fmt.Errorf("weaviate: %s: missing %s", path, strings.Join(missing, ", "))
	}
	var p Production
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Production{}, fmt.Errorf("weaviate: %s: %w", path, err)
	}
	if !filepath.IsAbs(p.Corpus) {
		return Production{}, fmt.Errorf("weaviate: %s: corpus: want an absolute path (got %q)", path, p.Corpus)
	}
	if !className.MatchString(p.Class) {
		return Production{}, fmt.Errorf("weaviate: %s: class: want a GraphQL class name, capitalized (got %q)", path, p.Class)
	}
	t, err := Translate(map[string]any{ParamAlpha: p.Alpha, ParamFusionType: p.FusionType, backend.ParamDepth: p.MaxResults,
		backend.ParamBM25K1: p.K1, backend.ParamBM25B: p.B, backend.ParamDenseModel: p.Model})
	if err != nil {
		return Production{}, fmt.Errorf("weaviate: %s: %w", path, err)
	}
	p.Trial = t
	return p, nil
}

var _ backend.Verifier = (*Factory)(nil)

// Verify installs the production config (a promotion's, or the one a
// rollback restores) on the production server and runs check against it,
// searching as the application does (the file's class, alpha and
// fusionType). With url, the server is the user's: the kind loads the
// production class when it is missing (and waits Options.Settle for the
// import to flush), sets its BM25 k1 and b, and refuses a maxResults
// other than the server's. With bin, there is no production server to
// keep: the kind starts one in scratch, installs the config there, checks
// it and stops it, as the embedded kind verifies its engine config. A
// config file that does not exist (a rollback past the first promotion)
// installs nothing; the class stays on the server.
func (f *Factory) Verify(config, scratch string, log io.Writer, check func(context.Context, backend.Searcher) error) (func(context.Context) error, error) {
	if log == nil {
		log = io.Discard
	}
	return func(ctx context.Context) error {
		if _, err := os.Stat(config); errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(log, "weaviate: %s does not exist: nothing to install\n", config)
			return nil
		}
		if f.o.Class != "" {
			ob, err := f.Open(scratch, log)
			if err != nil {
				return err
			}
			defer ob.Close()
			return f.verifyAttached(ctx, config, ob.(*Backend), check)
		}
		p, err := ReadProduction(config)
		if err != nil {
			return err
		}
		g := *f // the corpus the file names (settings need not name one)
		g.o.Corpus.Path = p.Corpus
		return g.install(ctx, p, scratch, log, check)
	}, nil
}

// install brings p up on the production server (url) or on a server
// started in scratch (bin), then runs check.
func (f *Factory) install(ctx context.Context, p Production, scratch string, log io.Writer, check func(context.Context, backend.Searcher) error) (err error) {
	var b *Backend
	if f.o.URL != "" {
		if p.MaxResults != f.o.MaxResults {
			return fmt.Errorf("weaviate: maxResults %d: the server at %s runs with QUERY_HYBRID_MAXIMUM_RESULTS=%d (backend.weaviate.max_results): restart it with %d and set max_results to match",
				p.MaxResults, f.o.URL, f.o.MaxResults, p.MaxResults)
		}
		b = &Backend{f: f, log: log, classes: map[string]*class{}, depth: f.o.MaxResults, client: NewClient(f.o.URL)}
		if err := b.client.Ready(ctx); err != nil {
			return err
		}
	} else {
		dir, err := os.MkdirTemp(scratch, "weaviate-")
		if err != nil {
			return fmt.Errorf("weaviate: %w", err)
		}
		ob, err := f.Open(dir, log)
		if err != nil {
			return err
		}
		b = ob.(*Backend)
		defer func() { err = errors.Join(err, b.Close()) }()
	}
	cl, err := b.production(ctx, p)
	if err != nil {
		return err
	}
	if cl.k1 != p.K1 || cl.b != p.B {
		if err := b.client.SetBM25(ctx, cl.name, p.K1, p.B); err != nil {
			return err
		}
		cl.k1, cl.b = p.K1, p.B
	}
	b.mu.Lock()
	b.trial, b.cur = p.Trial, cl
	b.mu.Unlock()
	if err := b.Restart(ctx); err != nil { // the depth of a server the kind started
		return err
	}
	fmt.Fprintf(log, "weaviate: class %s (BM25 k1 %v, b %v, QUERY_HYBRID_MAXIMUM_RESULTS %d) answers hybrid queries with alpha %v, fusionType %s\n",
		cl.name, cl.k1, cl.b, p.MaxResults, p.Alpha, p.FusionType)
	return check(ctx, b)
}

// production returns the production class of p, loading it when the
// server lacks it; an existing class is kept as it is, once its object
// count says it holds the corpus.
func (b *Backend) production(ctx context.Context, p Production) (*class, error) {
	ok, err := b.client.HasClass(ctx, p.Class)
	if err != nil {
		return nil, err
	}
	if !ok {
		return b.load(ctx, p.Trial, p.Class)
	}
	ids, _, emb, err := b.embedder(ctx, p.Trial)
	if err != nil {
		return nil, err
	}
	n, err := b.client.Count(ctx, p.Class)
	if err != nil {
		return nil, err
	}
	if n != len(ids) {
		return nil, fmt.Errorf("weaviate: class %s holds %d objects and the corpus %s %d documents: it was loaded from another corpus; drop it (DELETE /v1/schema/%s) or set class_prefix",
			p.Class, n, filepath.Base(b.f.o.Corpus.Path), len(ids), p.Class)
	}
	k1, bb, err := b.client.BM25Of(ctx, p.Class)
	if err != nil {
		return nil, err
	}
	return &class{name: p.Class, emb: emb, k1: k1, b: bb}, nil
}
