package searchwire

import "time"

// The wire shapes: a caller's types must have these underlying types
// (fields, order and JSON tags), which the constraints below require.
type (
	hitShape = struct {
		DocID   string  `json:"doc_id"`
		ChunkID string  `json:"chunk_id,omitempty"`
		Score   float64 `json:"score"`
		Text    string  `json:"text,omitempty"`
	}
	candidateShape = struct {
		ID    string  `json:"id"`
		DocID string  `json:"doc_id"`
		Score float64 `json:"score"`
		Rank  int     `json:"rank"`
	}
	timingsShape = struct {
		LexicalMS float64 `json:"lexical_ms"`
		DenseMS   float64 `json:"dense_ms"`
		FusionMS  float64 `json:"fusion_ms"`
		RerankMS  float64 `json:"rerank_ms,omitempty"`
	}
	variantShape[H HitShape] = struct {
		Hits    []H    `json:"hits"`
		Routing string `json:"routing,omitempty"`
	}
	responseShape[H HitShape, C CandidateShape, V VariantShape[H], T TimingsShape] = struct {
		Hits       []H                `json:"hits"`
		Routing    string             `json:"routing,omitempty"`
		Candidates map[string][]C     `json:"candidates,omitempty"`
		Variants   []V                `json:"variants,omitempty"`
		Timings    *T                 `json:"timings,omitempty"`
		Rerank     map[string]float64 `json:"rerank,omitempty"`
	}
)

// HitShape is a hit type shaped as Hit (backend.Hit).
type HitShape interface{ ~hitShape }

// CandidateShape is a candidate type shaped as Candidate
// (fusion.Candidate).
type CandidateShape interface{ ~candidateShape }

// TimingsShape is a timings type shaped as Timings
// (backend.StageTimings).
type TimingsShape interface{ ~timingsShape }

// VariantShape is a variant type shaped as Variant, with hits of type H
// (backend.Variant).
type VariantShape[H HitShape] interface{ ~variantShape[H] }

// ResponseShape is a response type shaped as Response, with hits,
// candidates, variants and timings of types H, C, V and T
// (backend.SearchResponse).
type ResponseShape[H HitShape, C CandidateShape, V VariantShape[H], T TimingsShape] interface {
	~responseShape[H, C, V, T]
}

// Hit is one fused result: {"doc_id", "chunk_id", "score", "text"}.
type Hit hitShape

// Candidate is one entry of a retriever's candidate list: {"id",
// "doc_id", "score", "rank"}.
type Candidate candidateShape

// Timings are a search's per-stage times in milliseconds: {"lexical_ms",
// "dense_ms", "fusion_ms"} and "rerank_ms" when the rerank stage ran.
type Timings timingsShape

// Variant is the answer to one fusion variant of a request: {"hits",
// "routing"}.
type Variant variantShape[Hit]

// Response is the body of POST /search: {"hits", "routing", "candidates"
// (by retriever), "variants", "timings", "rerank" (a reranker's score by
// candidate id)}.
type Response responseShape[Hit, Candidate, Variant, Timings]

// Answer is one line of a /search/batch body: the response to request
// Index, or the Status and Error /search would have answered it with.
type Answer[R any] struct {
	// Index is the request's 0-based position in the batch.
	Index int
	// Elapsed is the search's own time on the server ("ms").
	Elapsed time.Duration
	// Response is the response, its hits without text (zero with Status).
	Response R
	// Status and Error are a failed request's ("status", "error").
	Status int
	Error  string
}

// millis is d in milliseconds with microsecond resolution (as
// backend.Millis).
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
