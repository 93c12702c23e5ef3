package weaviate

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/backend/embed"
)

// Client speaks Weaviate's REST and GraphQL API (v1) on one server.
type Client struct {
	// URL is the server's root, e.g. "http://127.0.0.1:8080".
	URL  string
	HTTP *http.Client
	// IDProperty is the property queries read as a hit's document id
	// ("": doc_id, the property of the classes the kind creates).
	IDProperty string
}

// NewClient returns a client of the server at url.
func NewClient(url string) *Client {
	return &Client{URL: strings.TrimRight(url, "/"), HTTP: &http.Client{Timeout: 2 * time.Minute}}
}

// Ready returns nil when GET /v1/.well-known/ready answers 200.
func (c *Client) Ready(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+"/v1/.well-known/ready", nil)
	if err != nil {
		return err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("weaviate: ready: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("weaviate: ready: status %d", resp.StatusCode)
	}
	return nil
}

// do sends a JSON request and decodes a JSON answer into out (when not
// nil); a status other than 2xx is an error quoting the body.
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("weaviate: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("weaviate: %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("weaviate: %s %s: status %d: %s", method, path, resp.StatusCode, bytes.TrimSpace(data))
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("weaviate: %s %s: decode: %w", method, path, err)
	}
	return nil
}

// ClassConfig is what CreateClass makes: a class (collection) of one
// object per document, with the document id in property "doc_id" (not
// searchable) and its text in "text" (BM25 with word tokenization), and
// bring-your-own vectors (vectorizer "none") under cosine distance.
type ClassConfig struct {
	Name string
	// K1 and B are BM25's parameters (Weaviate's defaults 1.2 and 0.75).
	K1, B float64
	// IndexType is the vector index: "hnsw" (Weaviate's default) or
	// "flat" (exact search).
	IndexType string
}

// CreateClass creates the class cfg describes.
func (c *Client) CreateClass(ctx context.Context, cfg ClassConfig) error {
	idx := cfg.IndexType
	if idx == "" {
		idx = "hnsw"
	}
	class := map[string]any{
		"class":             cfg.Name,
		"vectorizer":        "none",
		"vectorIndexType":   idx,
		"vectorIndexConfig": map[string]any{"distance": "cosine"},
		"invertedIndexConfig": map[string]any{
			"bm25": map[string]any{"k1": cfg.K1, "b": cfg.B},
		},
		"properties": []map[string]any{
			{"name": "doc_id", "dataType": []string{"text"}, "tokenization": "field", "indexSearchable": false},
			{"name": "text", "dataType": []string{"text"}, "tokenization": "word"},
		},
	}
	return c.do(ctx, http.MethodPost, "/v1/schema", class, nil)
}

// DeleteClass drops a class and its objects; a missing class is no error.
func (c *Client) DeleteClass(ctx context.Context, name string) error {
	return c.do(ctx, http.MethodDelete, "/v1/schema/"+name, nil, nil)
}

// Classes returns the names of the server's classes (GET /v1/schema).
func (c *Client) Classes(ctx context.Context) ([]string, error) {
	var s struct {
		Classes []struct {
			Class string `json:"class"`
		} `json:"classes"`
	}
	if err := c.do(ctx, http.MethodGet, "/v1/schema", nil, &s); err != nil {
		return nil, err
	}
	out := make([]string, len(s.Classes))
	for i, cl := range s.Classes {
		out[i] = cl.Class
	}
	return out, nil
}

// HasClass reports whether the class exists.
func (c *Client) HasClass(ctx context.Context, name string) (bool, error) {
	names, err := c.Classes(ctx)
	if err != nil {
		return false, err
	}
	for _, n := range names {
		if n == name {
			return true, nil
		}
	}
	return false, nil
}

// SetBM25 changes a class's BM25 k1 and b live: GET /v1/schema/<class>,
// then PUT it back with invertedIndexConfig.bm25 replaced.
func (c *Client) SetBM25(ctx context.Context, class string, k1, b float64) error {
	var cl map[string]any
	if err := c.do(ctx, http.MethodGet, "/v1/schema/"+class, nil, &cl); err != nil {
		return err
	}
	inv, _ := cl["invertedIndexConfig"].(map[string]any)
	if inv == nil {
		inv = map[string]any{}
		cl["invertedIndexConfig"] = inv
	}
	inv["bm25"] = map[string]any{"k1": k1, "b": b}
	return c.do(ctx, http.MethodPut, "/v1/schema/"+class, cl, nil)
}

// BM25Of returns a class's BM25 k1 and b as the server holds them (GET
// /v1/schema/<class>).
func (c *Client) BM25Of(ctx context.Context, class string) (k1, b float64, err error) {
	var cl struct {
		InvertedIndexConfig struct {
			BM25 struct {
				K1 float64 `json:"k1"`
				B  float64 `json:"b"`
			} `json:"bm25"`
		} `json:"invertedIndexConfig"`
	}
	if err := c.do(ctx, http.MethodGet, "/v1/schema/"+class, nil, &cl); err != nil {
		return 0, 0, err
	}
	return cl.InvertedIndexConfig.BM25.K1, cl.InvertedIndexConfig.BM25.B, nil
}

// Count returns the number of objects in a class (GraphQL Aggregate).
func (c *Client) Count(ctx context.Context, class string) (int, error) {
	var out struct {
		Data struct {
			Aggregate map[string][]struct {
				Meta struct {
					Count int `json:"count"`
				} `json:"meta"`
			} `json:"Aggregate"`
		} `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	q := fmt.Sprintf("{ Aggregate { %s { meta { count } } } }", class)
	if err := c.do(ctx, http.MethodPost, "/v1/graphql", map[string]string{"query": q}, &out); err != nil {
		return 0, err
	}
	if len(out.Errors) > 0 {
		return 0, fmt.Errorf("weaviate: graphql: %s", out.Errors[0].Message)
	}
	rows := out.Data.Aggregate[class]
	if len(rows) != 1 {
		return 0, fmt.Errorf("weaviate: count %s: %d aggregate rows", class, len(rows))
	}
	return rows[0].Meta.Count, nil
}

// Object is one document to load.
type Object struct {
	DocID  string
	Text   string
	Vector []float32
}

// UUID returns the object id of a document: a name-based (version 5)
// UUID of docID, so that ids are stable across loads and the replay can
// break ties by them as Weaviate does.
func UUID(docID string) string {
	ns := [16]byte{0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8} // RFC 4122 URL namespace
	h := sha1.New()
	h.Write(ns[:])
	h.Write([]byte("fusiontune:" + docID))
	sum := h.Sum(nil)
	sum[6] = sum[6]&0x0f | 0x50
	sum[8] = sum[8]&0x3f | 0x80
	x := hex.EncodeToString(sum[:16])
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// Load adds objs to class in batches of batch (POST /v1/batch/objects);
// any object the server rejects fails the load.
func (c *Client) Load(ctx context.Context, class string, objs []Object, batch int) error {
	if batch <= 0 {
		batch = 500
	}
	for start := 0; start < len(objs); start += batch {
		end := min(start+batch, len(objs))
		body := struct {
			Objects []map[string]any `json:"objects"`
		}{}
		for _, o := range objs[start:end] {
			body.Objects = append(body.Objects, map[string]any{
				"class":      class,
				"id":         UUID(o.DocID),
				"properties": map[string]any{"doc_id": o.DocID, "text": o.Text},
				"vector":     o.Vector,
			})
		}
		var out []struct {
			ID     string `json:"id"`
			Result struct {
				Errors *struct {
					Error []struct {
						Message string `json:"message"`
					} `json:"error"`
				} `json:"errors"`
			} `json:"result"`
		}
		if err := c.do(ctx, http.MethodPost, "/v1/batch/objects", body, &out); err != nil {
			return err
		}
		for _, r := range out {
			if r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				return fmt.Errorf("weaviate: load object %s: %s", r.ID, r.Result.Errors.Error[0].Message)
			}
		}
	}
	return nil
}

// Hit is one result of a query: the document, its object id and its
// score. For a hybrid or bm25 query Score is the engine's score (sent as
// a string, a float32); for a nearVector query it is 1 - distance, the
// value Weaviate's hybrid fusion normalizes (its SecondarySortValue).
type Hit struct {
	DocID string
	UUID  string
	Score float64
}

// HybridQuery is one hybrid query.
type HybridQuery struct {
	Class      string
	Query      string
	Vector     []float32
	Alpha      float64
	FusionType string // rankedFusion or relativeScoreFusion
	Limit      int
}

// Hybrid runs a hybrid query (GraphQL Get with hybrid: query, vector,
// alpha, fusionType).
func (c *Client) Hybrid(ctx context.Context, q HybridQuery) ([]Hit, error) {
	return c.get(ctx, q.Class, HybridArgs(q), "score")
}

// HybridArgs are the GraphQL arguments of q's hybrid query: query,
// vector (left out when nil: the class's vectorizer embeds the query),
// alpha, fusionType and limit.
func HybridArgs(q HybridQuery) string {
	vector := ""
	if q.Vector != nil {
		vector = ", vector: " + embed.FormatVector(q.Vector)
	}
	return fmt.Sprintf("hybrid: {query: %s%s, alpha: %s, fusionType: %s}, limit: %d",
		gqlString(q.Query), vector, strconv.FormatFloat(q.Alpha, 'g', -1, 64), q.FusionType, q.Limit)
}

// NearText runs the vector leg of a class with a vectorizer alone: a
// nearText query of depth limit (Hit.Score 1 - distance).
func (c *Client) NearText(ctx context.Context, class, query string, limit int) ([]Hit, error) {
	return c.get(ctx, class, fmt.Sprintf("nearText: {concepts: [%s]}, limit: %d", gqlString(query), limit), "distance")
}

// BM25 runs the keyword leg alone: a bm25 query of depth limit.
func (c *Client) BM25(ctx context.Context, class, query string, limit int) ([]Hit, error) {
	return c.get(ctx, class, fmt.Sprintf("bm25: {query: %s}, limit: %d", gqlString(query), limit), "score")
}

// NearVector runs the vector leg alone: a nearVector query of depth
// limit; Hit.Score is 1 - distance in float32, as Weaviate's hybrid
// fusion computes it.
func (c *Client) NearVector(ctx context.Context, class string, vector []float32, limit int) ([]Hit, error) {
	return c.get(ctx, class, fmt.Sprintf("nearVector: {vector: %s}, limit: %d", embed.FormatVector(vector), limit), "distance")
}

// get runs a GraphQL Get on class with args and reads doc_id, the object
// id and the additional field (score or distance).
func (c *Client) get(ctx context.Context, class, args, field string) ([]Hit, error) {
	idProp := c.IDProperty
	if idProp == "" {
		idProp = "doc_id"
	}
	query := fmt.Sprintf("{ Get { %s(%s) { %s _additional { id %s } } } }", class, args, idProp, field)
	var out struct {
		Data   map[string]map[string][]map[string]json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := c.do(ctx, http.MethodPost, "/v1/graphql", map[string]string{"query": query}, &out); err != nil {
		return nil, err
	}
	if len(out.Errors) > 0 {
		return nil, fmt.Errorf("weaviate: graphql: %s", out.Errors[0].Message)
	}
	rows := out.Data["Get"][class]
	hits := make([]Hit, 0, len(rows))
	for _, row := range rows {
		var h Hit
		if err := json.Unmarshal(row[idProp], &h.DocID); err != nil {
			return nil, fmt.Errorf("weaviate: graphql: %s: %w", idProp, err)
		}
		var add map[string]json.RawMessage
		if err := json.Unmarshal(row["_additional"], &add); err != nil {
			return nil, fmt.Errorf("weaviate: graphql: _additional: %w", err)
		}
		if err := json.Unmarshal(add["id"], &h.UUID); err != nil {
			return nil, fmt.Errorf("weaviate: graphql: id: %w", err)
		}
		v, err := Score32(add[field])
		if err != nil {
			return nil, fmt.Errorf("weaviate: graphql: %s of %s: %w", field, h.DocID, err)
		}
		if field == "distance" {
			v = 1 - v // float32, as Weaviate's hybrid computes it
		}
		h.Score = float64(v)
		hits = append(hits, h)
	}
	return hits, nil
}

// Score32 reads a score Weaviate sends either as a JSON number or as a
// JSON string holding one ("0.016397849": GraphQL's score is a String),
// as the float32 Weaviate computed: the text is the shortest decimal of
// that float32, so the value is exact.
func Score32(raw json.RawMessage) (float32, error) {
	s := strings.TrimSpace(string(raw))
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
	}
	v, err := strconv.ParseFloat(s, 32)
	if err != nil {
		return 0, fmt.Errorf("not a number: %s", raw)
	}
	return float32(v), nil
}

// gqlString quotes s as a GraphQL string (JSON escapes are valid GraphQL).
func gqlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
