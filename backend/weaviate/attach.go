package weaviate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/embed"
)

// Attach mode (Options.Class): the kind tunes an existing class of the
// user's server, read-only. Its documents and vectors are the user's; the
// kind never creates, changes or drops a class, so read-only access
// suffices. Only query-time parameters are tuned (alpha, fusionType);
// the depth is the server's QUERY_HYBRID_MAXIMUM_RESULTS, and each leg is
// collected at exactly that depth, the depth the server's own hybrid
// query uses: on a class under BlockMax WAND (Weaviate's default inverted
// index, see ExactBM25Env) the BM25 top k at one limit is not always a
// prefix of the top k at a deeper one, so collecting deeper and cutting
// would not reproduce the live answer.

// attachedOnly are the parameters Translate takes that attach mode
// refuses: index-time settings of the user's class.
var attachedOnly = map[string]string{
	backend.ParamBM25K1:       "the class's BM25 k1 is the user's schema setting, which attach mode never changes",
	backend.ParamBM25B:        "the class's BM25 b is the user's schema setting, which attach mode never changes",
	backend.ParamDenseModel:   "the class's vectors are the user's: set backend.weaviate.query_vectors instead",
	backend.ParamChunkSize:    "the class's objects are the user's",
	backend.ParamChunkOverlap: "the class's objects are the user's",
}

// newAttached checks the options of attach mode.
func newAttached(o Options) (*Factory, error) {
	var probs []string
	if o.URL == "" || o.Bin != "" {
		probs = append(probs, "class: attach mode needs url (the server holding the class), not bin")
	}
	if !className.MatchString(o.Class) {
		probs = append(probs, fmt.Sprintf("class: want a GraphQL class name, capitalized (got %q)", o.Class))
	}
	if o.Model != "" {
		probs = append(probs, "model: not with class (the class holds its own vectors; query_vectors makes the query vectors)")
	}
	if o.MaxResults < 0 || o.MaxResults > MaxMaxResults {
		probs = append(probs, fmt.Sprintf("max_results: want 0 to %d (got %d)", MaxMaxResults, o.MaxResults))
	}
	if q := o.QueryVectors; q != "" {
		fits := strings.HasPrefix(q, "lsa-")
		switch {
		case !strings.HasPrefix(q, "openai:") && !strings.HasPrefix(q, "file:") && !fits && !strings.HasPrefix(q, "hash-"):
			probs = append(probs, fmt.Sprintf("query_vectors: want openai:<model>, file:<path>, lsa-<dim> or hash-<dim> (got %q)", q))
		case fits && (o.Corpus.Path == "" || o.Corpus.Path == "-"):
			probs = append(probs, "query_vectors: "+q+" is fitted on the corpus the class was embedded from: set corpus")
		}
	}
	if len(probs) > 0 {
		return nil, fmt.Errorf("weaviate: %s", strings.Join(probs, "; "))
	}
	if o.IDProperty == "" {
		o.IDProperty = "doc_id"
	}
	o.searchDefaults()
	return &Factory{o: o}, nil
}

// attachedTrial translates a trial of attach mode: Translate, without the
// index-time settings (attachedOnly) and at the server's depth.
func (f *Factory) attachedTrial(params map[string]any) (Trial, error) {
	var probs []string
	for name, why := range attachedOnly {
		if _, ok := params[name]; ok {
			probs = append(probs, name+": "+why)
		}
	}
	t, err := Translate(params)
	if err != nil {
		probs = append(probs, err.Error())
	} else if t.MaxResults != f.o.MaxResults {
		if _, set := params[backend.ParamDepth]; set || params[backend.ParamFusionDepth] != nil {
			probs = append(probs, fmt.Sprintf("depth: the server at %s runs with QUERY_HYBRID_MAXIMUM_RESULTS=%d (backend.weaviate.max_results) and attach mode never restarts it (got %d)", f.o.URL, f.o.MaxResults, t.MaxResults))
		}
		t.MaxResults = f.o.MaxResults
	}
	if len(probs) > 0 {
		sort.Strings(probs)
		return Trial{}, errors.New(strings.Join(probs, "; "))
	}
	t.K1, t.B, t.Model = 0, 0, ""
	return t, nil
}

func (f *Factory) describeAttached(params map[string]any) string {
	t, err := f.attachedTrial(params)
	if err != nil {
		return "translate error: " + err.Error()
	}
	b, _ := json.Marshal(Attached{Class: f.o.Class, Alpha: t.Alpha, FusionType: t.FusionType, MaxResults: t.MaxResults,
		QueryVectors: f.o.QueryVectors, IDProperty: f.o.IDProperty, attached: true})
	return string(b)
}

// Attached is attach mode's production config: the query parameters the
// application sends with every hybrid query on its own class, and the
// GraphQL query that sends them. A promotion writes it and checks it on
// the server; nothing is installed there, so a rollback only restores the
// previous file.
type Attached struct {
	// Class is the user's class.
	Class string `json:"class"`
	// Alpha and FusionType are the hybrid query's parameters.
	Alpha      float64 `json:"alpha"`
	FusionType string  `json:"fusionType"`
	// MaxResults is the server's QUERY_HYBRID_MAXIMUM_RESULTS the trial
	// was scored at.
	MaxResults int `json:"maxResults"`
	// QueryVectors is how the query vector was made ("" for the class's
	// vectorizer).
	QueryVectors string `json:"queryVectors,omitempty"`
	// IDProperty is the class's property holding the document id.
	IDProperty string `json:"idProperty"`
	// GraphQL is the query, $query and $vector standing for the query's
	// text and vector (no vector with the class's vectorizer).
	GraphQL  string `json:"graphql"`
	attached bool
}

// MarshalJSON writes the recorded form (attached: true) or, once
// GraphQL is set, the production file.
func (a Attached) MarshalJSON() ([]byte, error) {
	type plain Attached
	if a.attached {
		return json.Marshal(struct {
			Attached bool `json:"attached"`
			plain
		}{true, plain(a)})
	}
	return json.Marshal(plain(a))
}

// attachedGraphQL is the GraphQL query of a production config.
func attachedGraphQL(a Attached) string {
	q := HybridQuery{Class: a.Class, Query: "$query", Alpha: a.Alpha, FusionType: a.FusionType, Limit: 10}
	args := HybridArgs(q)
	args = strings.Replace(args, `"$query"`, "$query", 1)
	if a.QueryVectors != "" {
		args = strings.Replace(args, "$query,", "$query, vector: $vector,", 1)
	}
	return fmt.Sprintf("{ Get { %s(%s) { %s _additional { score } } } }", a.Class, args, a.IDProperty)
}

// attachedFile turns an attach-mode trial's recorded config into its
// production file, or reports false when recorded is not one.
func attachedFile(recorded []byte) ([]byte, bool, error) {
	var probe struct {
		Attached bool `json:"attached"`
	}
	if json.Unmarshal(recorded, &probe) != nil || !probe.Attached {
		return nil, false, nil
	}
	var a Attached
	if err := json.Unmarshal(recorded, &a); err != nil {
		return nil, true, fmt.Errorf("weaviate: the trial's recorded config: %w", err)
	}
	a.GraphQL = attachedGraphQL(a)
	out, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return nil, true, err
	}
	return append(out, '\n'), true, nil
}

// ReadAttached reads and checks attach mode's production config.
func ReadAttached(path string) (Attached, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Attached{}, fmt.Errorf("weaviate: production config: %w", err)
	}
	var a Attached
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return Attached{}, fmt.Errorf("weaviate: %s: %w", path, err)
	}
	if !className.MatchString(a.Class) {
		return Attached{}, fmt.Errorf("weaviate: %s: class: want a GraphQL class name, capitalized (got %q)", path, a.Class)
	}
	t, err := Translate(map[string]any{ParamAlpha: a.Alpha, ParamFusionType: a.FusionType, backend.ParamDepth: a.MaxResults})
	if err != nil {
		return Attached{}, fmt.Errorf("weaviate: %s: %w", path, err)
	}
	a.Alpha, a.FusionType, a.MaxResults = t.Alpha, t.FusionType, t.MaxResults
	return a, nil
}

// attach checks the user's class (present, with the id property) and
// builds its query embedder; the class becomes the one every search
// queries.
func (b *Backend) attach(ctx context.Context) error {
	o := b.f.o
	var schema struct {
		Vectorizer string `json:"vectorizer"`
		Properties []struct {
			Name string `json:"name"`
		} `json:"properties"`
	}
	if err := b.client.do(ctx, http.MethodGet, "/v1/schema/"+o.Class, nil, &schema); err != nil {
		return fmt.Errorf("weaviate: class %s on %s: %w", o.Class, o.URL, err)
	}
	var names []string
	for _, p := range schema.Properties {
		names = append(names, p.Name)
	}
	if !slices.Contains(names, o.IDProperty) {
		return fmt.Errorf("weaviate: class %s has no property %q holding the document id (its properties: %s; set backend.weaviate.id_property)",
			o.Class, o.IDProperty, strings.Join(names, ", "))
	}
	if o.QueryVectors == "" && (schema.Vectorizer == "" || schema.Vectorizer == "none") {
		return fmt.Errorf("weaviate: class %s has no vectorizer to embed query texts: set backend.weaviate.query_vectors (openai:<model>, file:<path>, ...) to the embedder of its vectors", o.Class)
	}
	b.client.IDProperty = o.IDProperty
	cl := &class{name: o.Class}
	if o.QueryVectors != "" {
		var texts []string
		if strings.HasPrefix(o.QueryVectors, "lsa-") {
			c, err := corpus.Load(o.Corpus)
			if err != nil {
				return err
			}
			if _, texts, err = corpus.IndexTexts(c.Docs, corpus.ChunkConfig{}); err != nil {
				return err
			}
		}
		emb, err := embed.ForQueries(ctx, o.QueryVectors, o.Embed, texts)
		if err != nil {
			return fmt.Errorf("weaviate: query_vectors %s: %w", o.QueryVectors, err)
		}
		cl.emb = emb
	}
	b.cur = cl
	fmt.Fprintf(b.log, "weaviate: attached to class %s on %s (read-only; query vectors: %s)\n", o.Class, o.URL, orVectorizer(o.QueryVectors))
	return nil
}

func orVectorizer(spec string) string {
	if spec == "" {
		return "the class's vectorizer"
	}
	return spec
}

// applyAttached sets an attach-mode trial: nothing changes on the server.
func (b *Backend) applyAttached(params map[string]any) error {
	t, err := b.f.attachedTrial(params)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.trial = t
	return nil
}

// verifyAttached checks attach mode's production config on the user's
// server: the file's class is the attached one, its depth the server's,
// and check searches through it as the application does.
func (f *Factory) verifyAttached(ctx context.Context, config string, b *Backend, check func(context.Context, backend.Searcher) error) error {
	a, err := ReadAttached(config)
	if err != nil {
		return err
	}
	switch {
	case a.Class != f.o.Class:
		return fmt.Errorf("weaviate: %s: class %s, but backend.weaviate.class is %s", config, a.Class, f.o.Class)
	case a.MaxResults != f.o.MaxResults:
		return fmt.Errorf("weaviate: %s: maxResults %d, but the server runs with QUERY_HYBRID_MAXIMUM_RESULTS=%d (backend.weaviate.max_results)", config, a.MaxResults, f.o.MaxResults)
	case a.IDProperty != f.o.IDProperty:
		return fmt.Errorf("weaviate: %s: idProperty %q, but backend.weaviate.id_property is %q", config, a.IDProperty, f.o.IDProperty)
	case a.QueryVectors != f.o.QueryVectors:
		return fmt.Errorf("weaviate: %s: queryVectors %q, but backend.weaviate.query_vectors is %q", config, a.QueryVectors, f.o.QueryVectors)
	}
	b.mu.Lock()
	b.trial = Trial{Alpha: a.Alpha, FusionType: a.FusionType, MaxResults: a.MaxResults}
	b.mu.Unlock()
	fmt.Fprintf(b.log, "weaviate: class %s answers hybrid queries with alpha %v, fusionType %s (QUERY_HYBRID_MAXIMUM_RESULTS %d)\n", a.Class, a.Alpha, a.FusionType, a.MaxResults)
	return check(ctx, b)
}
