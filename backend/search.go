package backend

import (
	"time"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

// SearchRequest is the body of POST /search on the embedded engine and the
// tuner's view of one query to any backend.
type SearchRequest struct {
	Query   string         `json:"query"`
	K       int            `json:"k,omitempty"`       // hits to return; 0 means the backend's default
	Explain bool           `json:"explain,omitempty"` // also return each retriever's candidate list
	Fusion  *fusion.Params `json:"fusion,omitempty"`  // per-request override of query-time fusion settings
	// Variants asks a backend that supports them (the embedded engine, the
	// postgres kind) to fuse the same query again under each of these
	// fusion overrides, answered in SearchResponse.Variants in order: one
	// retrieval, several fusions. Each variant's depth must equal the
	// request's (the postgres kind takes any). A backend without support
	// ignores them.
	Variants []fusion.Params `json:"variants,omitempty"`
	// Timings asks a backend that measures them (the embedded engine) for
	// its per-stage timings in SearchResponse.Timings (measured, so they
	// differ between two identical searches; Explain alone does not add
	// them).
	Timings bool `json:"timings,omitempty"`
	// RequestID is sent as the X-Request-ID header by HTTP clients, so a
	// backend's logs can be matched with the tuner's per-query records.
	RequestID string `json:"-"`
}

// Hit is one fused result.
type Hit struct {
	DocID   string  `json:"doc_id"`
	ChunkID string  `json:"chunk_id,omitempty"`
	Score   float64 `json:"score"`
	Text    string  `json:"text,omitempty"` // a short excerpt
}

// SearchResponse is what a search returns.
type SearchResponse struct {
	Hits []Hit `json:"hits"`
	// Routing is the backend's routing label for the query ("search",
	// "no_results", or a backend-specific label); empty when not reported.
	Routing string `json:"routing,omitempty"`
	// Candidates holds, with Explain, each retriever's candidate list (by
	// retriever name, e.g. "bm25", "dense") with raw scores and ranks.
	Candidates map[string][]fusion.Candidate `json:"candidates,omitempty"`
	// Variants answers SearchRequest.Variants, in order.
	Variants []Variant `json:"variants,omitempty"`
	// Timings, with SearchRequest.Timings, are the backend's own
	// per-stage times for the query; nil when it does not report them.
	Timings *StageTimings `json:"timings,omitempty"`
	// Rerank, with Explain and a rerank stage, is the reranker's score of
	// every candidate by candidate id (a chunk id, or the document's with
	// whole documents), read by the tuner's replay of the stage.
	Rerank map[string]float64 `json:"rerank,omitempty"`
}

// StageTimings are a backend's per-stage wall times for one query, in
// milliseconds: the lexical retriever, the dense one (embedding the query
// and the scan), fusion (every fused ranking of the request) and the
// rerank stage (the reranker's scores, cached or fetched, and the blend). The two
// retrievers run side by side in the embedded engine, so their sum can
// exceed the search's time. A stage the backend did not run is 0.
type StageTimings struct {
	LexicalMS float64 `json:"lexical_ms"`
	DenseMS   float64 `json:"dense_ms"`
	FusionMS  float64 `json:"fusion_ms"`
	RerankMS  float64 `json:"rerank_ms,omitempty"`
}

// Stage names of StageTimings, as the tuner's latency records use them.
const (
	StageLexical = "lexical"
	StageDense   = "dense"
	StageFusion  = "fusion"
	StageRerank  = "rerank"
)

// Map returns the timings by stage name, the rerank stage only when it
// took time.
func (t StageTimings) Map() map[string]float64 {
	m := map[string]float64{StageLexical: t.LexicalMS, StageDense: t.DenseMS, StageFusion: t.FusionMS}
	if t.RerankMS != 0 {
		m[StageRerank] = t.RerankMS
	}
	return m
}

// Millis converts d to milliseconds with microsecond resolution.
func Millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Variant is the answer to one fusion variant of a request.
type Variant struct {
	Hits    []Hit  `json:"hits"`
	Routing string `json:"routing,omitempty"`
}
