package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"gopkg.in/yaml.v3"
)

// Attach points the kind at a table the user owns and runs: it is read
// (read-only credentials suffice), never altered, loaded or dropped, and
// only query-time parameters are tuned. Each leg is either built from the
// table's columns or the user's own SQL.
//
// The user's SQL of a leg returns two columns, a document id and a score
// (higher is better), best first, at most $3 rows; its placeholders are
// $1 the query text, $2 the query vector (a pgvector literal, cast to
// vector) and $3 the depth. Inside the leg, equal scores then rank by id
// ascending in byte order, as on the kind's own tables.
type Attach struct {
	// Table is the user's table (schema.table or table).
	Table string
	// ID is the document id column; Text a text column (to_tsvector at
	// query time) or TSVector a tsvector column; Vector the vector column,
	// searched by cosine distance (<=>: an HNSW or IVFFlat index with
	// vector_cosine_ops serves it).
	ID, Text, TSVector, Vector string
	// TextConfig is the text-search configuration of plainto_tsquery
	// (and of to_tsvector over Text); DefaultTextConfig when empty.
	TextConfig string
	// BM25SQL and DenseSQL, when set, replace the leg built from the
	// columns.
	BM25SQL, DenseSQL string
	// QueryVectors is the embedder giving each query its vector, the one
	// the table's vectors were made with: file:<path> (precomputed query
	// vectors, the file:<path> format keyed by query text) or
	// openai:<model> for an OpenAI-compatible /v1/embeddings endpoint.
	QueryVectors string
	// VectorOptions serve openai:<model> (base URL, API key).
	VectorOptions embed.Options
	// Function, when set, is the SQL function a promotion (re)creates over
	// the table; without it a promotion writes the parameters file only.
	Function string
}

var (
	identifier  = regexp.MustCompile(`^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$`)
	placeholder = regexp.MustCompile(`\$([0-9]+)`)
)

// check lists every problem of a.
func (a Attach) check() error {
	var problems []string
	bad := func(field, format string, args ...any) {
		problems = append(problems, "backend.postgres.attach."+field+": "+fmt.Sprintf(format, args...))
	}
	ident := func(field, v string, required bool) {
		switch {
		case v == "" && required:
			bad(field, "required")
		case v != "" && !identifier.MatchString(v):
			bad(field, "a lowercase SQL name (letters, digits, _; schema.table for a table) (got %q)", v)
		}
	}
	columns := a.BM25SQL == "" || a.DenseSQL == ""
	ident("table", a.Table, columns)
	ident("id", a.ID, columns)
	if a.BM25SQL == "" {
		if (a.Text == "") == (a.TSVector == "") {
			bad("text", "set one of text (a text column) and tsvector (a tsvector column), or bm25_sql")
		}
		ident("text", a.Text, false)
		ident("tsvector", a.TSVector, false)
	}
	if a.DenseSQL == "" {
		ident("vector", a.Vector, true)
	}
	for field, q := range map[string]string{"bm25_sql": a.BM25SQL, "dense_sql": a.DenseSQL} {
		for _, m := range placeholder.FindAllStringSubmatch(q, -1) {
			if m[1] != "1" && m[1] != "2" && m[1] != "3" {
				bad(field, "placeholder $%s: the SQL takes $1 (query text), $2 (query vector) and $3 (depth)", m[1])
			}
		}
		if q != "" && !strings.Contains(q, "$3") {
			bad(field, "must limit its rows to the depth, $3 (LIMIT $3)")
		}
	}
	if a.TextConfig != "" && !textConfigName(a.TextConfig) {
		bad("text_config", "must be a text search configuration name such as english or simple (got %q)", a.TextConfig)
	}
	if !strings.HasPrefix(a.QueryVectors, "file:") && !strings.HasPrefix(a.QueryVectors, "openai:") {
		bad("query_vectors", "want file:<path> (precomputed query vectors) or openai:<model> (got %q)", a.QueryVectors)
	}
	if a.Function != "" && !textConfigName(a.Function) {
		bad("function", "lowercase letters, digits and _ (got %q)", a.Function)
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// legs are a's candidate SQL in the {name} form of the kind's own legs.
func (a Attach) legs() legs {
	cfg := a.TextConfig
	if cfg == "" {
		cfg = DefaultTextConfig
	}
	bm25 := a.BM25SQL
	if bm25 == "" {
		tsv := "t." + a.TSVector
		if a.TSVector == "" {
			tsv = fmt.Sprintf("to_tsvector('%s'::regconfig, t.%s)", cfg, a.Text)
		}
		bm25 = fmt.Sprintf(`SELECT t.%[1]s, ts_rank_cd(%[2]s, q.tsq)::float8 AS score
    FROM %[3]s t, (SELECT replace(plainto_tsquery('%[4]s'::regconfig, $1)::text, '&', '|')::tsquery AS tsq) q
    WHERE %[2]s @@ q.tsq ORDER BY score DESC, t.%[1]s::text COLLATE "C" LIMIT $3`, a.ID, tsv, a.Table, cfg)
	}
	dense := a.DenseSQL
	if dense == "" {
		dense = fmt.Sprintf(`SELECT t.%[1]s, 1 - (t.%[2]s <=> $2) AS score FROM %[3]s t ORDER BY t.%[2]s <=> $2 LIMIT $3`, a.ID, a.Vector, a.Table)
	}
	wrap := func(user string) string {
		user = placeholder.ReplaceAllStringFunc(user, func(m string) string {
			return map[string]string{"$1": "{query}", "$2": "{vector}", "$3": "{depth}"}[m]
		})
		return `SELECT id, id AS doc_id, score, row_number() OVER (ORDER BY score DESC, id COLLATE "C") AS pos FROM (
    SELECT u.id::text AS id, u.score::float8 AS score FROM (` + user + `) u(id, score)) l`
	}
	return legs{bm25: wrap(bm25), dense: wrap(dense)}
}

// name is what the attached index is called in messages and in the
// promoted function's comment: the table, or "your SQL".
func (a Attach) name() string {
	if a.Table != "" {
		return a.Table
	}
	return "your SQL"
}

// attachedVectors embeds queries with a's QueryVectors, loaded once.
type attachedVectors struct {
	a    Attach
	once sync.Once
	emb  embed.Embedder
	err  error
}

func (v *attachedVectors) embed(ctx context.Context, text string) (string, error) {
	v.once.Do(func() {
		v.emb, v.err = embed.New(v.a.QueryVectors, v.a.VectorOptions)
		if v.err != nil {
			v.err = fmt.Errorf("postgres: backend.postgres.attach.query_vectors: %w", v.err)
		}
	})
	if v.err != nil {
		return "", v.err
	}
	vec, err := v.emb.EmbedQuery(ctx, text)
	if err != nil {
		return "", fmt.Errorf("postgres: the vector of query %q: %w", text, err)
	}
	return embed.FormatVector(vec), nil
}

// QueryParams is the parameters file a promotion writes in attach mode: the
// query parameters the application passes to its hybrid SQL (the names of
// the promoted function's parameters).
type QueryParams struct {
	Method     fusion.Method `yaml:"method"`
	RRFK       float64       `yaml:"rrf_k"`
	WBM25      float64       `yaml:"w_bm25"`
	WDense     float64       `yaml:"w_dense"`
	Depth      int           `yaml:"depth"`
	FloorBM25  *float64      `yaml:"floor_bm25"`
	FloorDense *float64      `yaml:"floor_dense"`
}

// QueryParamsOf are c's query parameters.
func QueryParamsOf(c Config) QueryParams {
	return QueryParams{Method: c.Fusion.Method, RRFK: c.Fusion.K, WBM25: c.Fusion.Weight(BM25), WDense: c.Fusion.Weight(Dense),
		Depth: c.Fusion.Depth, FloorBM25: c.BM25.MinScore, FloorDense: c.Dense.MinScore}
}

// config is base with p's query parameters, checked.
func (p QueryParams) config(base Config) (Config, error) {
	c := base
	c.Fusion.Method, c.Fusion.K, c.Fusion.Depth = p.Method, p.RRFK, p.Depth
	c.Fusion.Weights = map[string]float64{BM25: p.WBM25, Dense: p.WDense}
	c.BM25.MinScore, c.Dense.MinScore = p.FloorBM25, p.FloorDense
	return c, c.Validate()
}

// readParams reads an attach-mode parameters file over base.
func readParams(path string, base Config) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	var p QueryParams
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	c, err := p.config(base)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}
