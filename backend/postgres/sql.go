package postgres

import (
	"fmt"
	"strings"

	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/jackc/pgx/v5"
)

// The SQL texts below name their parameters {query}, {vector}, {k},
// {depth}, {rrf_k}, {w_bm25}, {w_dense}, {floor_bm25} and {floor_dense};
// {table} and {tsconfig} are the table and text-search configuration.
// For a search they become pgx named arguments (@query, ...), in the
// promoted function hybrid_search its parameters.

// legSQL is one retriever's candidate list: the first {depth} chunks best
// first, ties by chunk id (byte order), with their raw scores and their
// 1-based positions. The dense leg lets the HNSW index find the nearest
// chunks and orders those by score: the inner product, which is the
// cosine of the L2-normalized vectors every built-in embedder gives (as
// in the embedded engine), and 0, not NaN as 1 - (a <=> b) would be, for
// the zero vector of a text without any known term.
const (
	bm25LegSQL = `SELECT id, doc_id, score, row_number() OVER (ORDER BY score DESC, id COLLATE "C") AS pos FROM (
    SELECT c.id, c.doc_id, ts_rank_cd(c.tsv, q.tsq)::float8 AS score
    FROM {table} c, (SELECT replace(plainto_tsquery('{tsconfig}'::regconfig, {query})::text, '&', '|')::tsquery AS tsq) q
    WHERE c.tsv @@ q.tsq
    ORDER BY score DESC, c.id COLLATE "C" LIMIT {depth}) l`
	denseLegSQL = `SELECT id, doc_id, score, row_number() OVER (ORDER BY score DESC, id COLLATE "C") AS pos FROM (
    SELECT c.id, c.doc_id, -(c.embedding <#> {vector}) AS score
    FROM {table} c
    ORDER BY c.embedding <#> {vector} LIMIT {depth}) l`
)

// collapsed turns a leg (the CTE named {leg}) into its documents: the
// first (best) chunk of a document keeps its score, ranks renumbered from
// 1; candidates below the floor dropped; nothing when the weight is 0.
const collapsedSQL = `SELECT doc_id, score, row_number() OVER (ORDER BY pos) AS rank FROM (
    SELECT DISTINCT ON (doc_id) doc_id, score, pos FROM {leg} x ORDER BY doc_id, pos) d
  WHERE {w} <> 0 AND ({floor} IS NULL OR score >= {floor})`

// fuseRRF and fuseLinear combine the collapsed legs b and d exactly as
// fusion.Fuse does: the bm25 term first, then the dense one, each added to
// 0 (an absent term adds nothing); min-max divides by multiplying with the
// reciprocal and maps a constant list to 1.
const (
	fuseRRF = `SELECT coalesce(b.doc_id, d.doc_id) AS doc_id,
    coalesce({w_bm25} / ({rrf_k} + b.rank::float8), 0) + coalesce({w_dense} / ({rrf_k} + d.rank::float8), 0) AS score
  FROM b FULL OUTER JOIN d ON b.doc_id = d.doc_id`
	fuseLinear = `SELECT coalesce(b.doc_id, d.doc_id) AS doc_id,
    coalesce({w_bm25} * b.norm, 0) + coalesce({w_dense} * d.norm, 0) AS score
  FROM (SELECT doc_id, CASE WHEN hi = lo THEN 1::float8 ELSE (score - lo) * (1::float8 / (hi - lo)) END AS norm
        FROM (SELECT doc_id, score, min(score) OVER () AS lo, max(score) OVER () AS hi FROM b) m) b
  FULL OUTER JOIN
       (SELECT doc_id, CASE WHEN hi = lo THEN 1::float8 ELSE (score - lo) * (1::float8 / (hi - lo)) END AS norm
        FROM (SELECT doc_id, score, min(score) OVER () AS lo, max(score) OVER () AS hi FROM d) m) d
  ON b.doc_id = d.doc_id`
)

// legs are the SQL of the two candidate lists: each returns (id, doc_id,
// score, pos), the first {depth} best first with their 1-based positions.
// The kind's own tables use bm25LegSQL and denseLegSQL; an attached table
// the user's (Attach.legs).
type legs struct{ bm25, dense string }

// ownLegs are the legs over the kind's own tables.
var ownLegs = legs{bm25: bm25LegSQL, dense: denseLegSQL}

// with is the common part of the hybrid and explain queries: the legs bl
// and dl (the candidate lists), their collapsed documents b and d, the
// fused documents f.
func (l legs) with(method fusion.Method) string {
	b := strings.NewReplacer("{leg}", "bl", "{w}", "{w_bm25}", "{floor}", "{floor_bm25}").Replace(collapsedSQL)
	d := strings.NewReplacer("{leg}", "dl", "{w}", "{w_dense}", "{floor}", "{floor_dense}").Replace(collapsedSQL)
	fuse := fuseRRF
	if method == fusion.Linear {
		fuse = fuseLinear
	}
	return "WITH bl AS (" + l.bm25 + "),\ndl AS (" + l.dense + "),\nb AS (" + b + "),\nd AS (" + d + "),\nf AS (" + fuse + ")\n"
}

// HybridSQL is the hybrid query of method (rrf or linear with min-max)
// with its parameters in {name} form: it returns doc_id and score, best
// first (ties by document id descending, byte order), at most {k} rows.
func HybridSQL(method fusion.Method) string { return ownLegs.hybrid(method) }

func (l legs) hybrid(method fusion.Method) string {
	return l.with(method) + `SELECT doc_id, score FROM f ORDER BY score DESC, doc_id COLLATE "C" DESC LIMIT {k}`
}

// ExplainSQL is HybridSQL plus each retriever's candidate list (its leg
// before the collapse and the floors: what replay fuses), from one
// evaluation of the legs: rows (list, id, doc_id, score, n), list "" for
// the n-th hit, else the retriever whose n-th candidate the row is.
func ExplainSQL(method fusion.Method) string { return ownLegs.explain(method) }

func (l legs) explain(method fusion.Method) string {
	return l.with(method) + `SELECT '' AS list, doc_id AS id, doc_id, score, n FROM (
    SELECT doc_id, score, row_number() OVER (ORDER BY score DESC, doc_id COLLATE "C" DESC) AS n FROM f) h WHERE n <= {k}
UNION ALL SELECT 'bm25', id, doc_id, score, pos FROM bl
UNION ALL SELECT 'dense', id, doc_id, score, pos FROM dl`
}

// types are the SQL types of the parameters.
var types = map[string]string{
	"query": "text", "vector": "vector", "k": "int", "depth": "int", "rrf_k": "float8",
	"w_bm25": "float8", "w_dense": "float8", "floor_bm25": "float8", "floor_dense": "float8",
}

// bind fills the {name} parameters of text: table and tsconfig literally,
// the others by arg(name, type).
func bind(text, table, tsconfig string, arg func(name, typ string) string) string {
	pairs := []string{"{table}", table, "{tsconfig}", tsconfig}
	for name, typ := range types {
		pairs = append(pairs, "{"+name+"}", arg(name, typ))
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// named binds text for pgx.NamedArgs: @name cast to its type.
func named(text, table, tsconfig string) string {
	return bind(text, table, tsconfig, func(name, typ string) string { return fmt.Sprintf("(@%s::%s)", name, typ) })
}

// multi is one statement ranking a query under several configs cs (a
// request and its fusion variants): the legs are evaluated once, as deep
// as the deepest config ({depth}), and each config fuses its first
// depth_i positions with its own method, RRF k and weights (floors are
// the request's: variants do not set them). Rows are (v, doc_id, score,
// n): the n-th hit of config v, at most {k} per config.
func (l legs) multi(cs []Config) (string, pgx.NamedArgs) {
	var b strings.Builder
	b.WriteString("WITH bl AS (" + l.bm25 + "),\ndl AS (" + l.dense + ")")
	a := pgx.NamedArgs{}
	for i, c := range cs {
		v := func(name string) string { return fmt.Sprintf("%s_%d", name, i) }
		a[v("depth")], a[v("rrf_k")], a[v("w_bm25")], a[v("w_dense")] = c.Fusion.Depth, c.Fusion.K, c.Fusion.Weight(BM25), c.Fusion.Weight(Dense)
		cut := func(leg string) string {
			return fmt.Sprintf("(SELECT * FROM %s WHERE pos <= (@%s::int))", leg, v("depth"))
		}
		own := strings.NewReplacer("{w_bm25}", "(@"+v("w_bm25")+"::float8)", "{w_dense}", "(@"+v("w_dense")+"::float8)", "{rrf_k}", "(@"+v("rrf_k")+"::float8)")
		bc := strings.NewReplacer("{leg}", cut("bl"), "{w}", "{w_bm25}", "{floor}", "{floor_bm25}").Replace(collapsedSQL)
		dc := strings.NewReplacer("{leg}", cut("dl"), "{w}", "{w_dense}", "{floor}", "{floor_dense}").Replace(collapsedSQL)
		fuse := fuseRRF
		if c.Fusion.Method == fusion.Linear {
			fuse = fuseLinear
		}
		fmt.Fprintf(&b, ",\nf%d AS (WITH b AS (%s),\nd AS (%s)\n%s)", i, own.Replace(bc), own.Replace(dc), own.Replace(fuse))
	}
	b.WriteString("\n")
	for i := range cs {
		if i > 0 {
			b.WriteString("\nUNION ALL ")
		}
		fmt.Fprintf(&b, `SELECT %d AS v, doc_id, score, n FROM (
    SELECT doc_id, score, row_number() OVER (ORDER BY score DESC, doc_id COLLATE "C" DESC) AS n FROM f%d) h%d WHERE n <= {k}`, i, i, i)
	}
	return b.String(), a
}
