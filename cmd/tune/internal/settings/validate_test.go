package settings

import (
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/experiments"
)

// TestBlockValidate: each block's Validate lists every problem of its
// block at once, fields relative to the block; a block at its defaults
// has none.
func TestBlockValidate(t *testing.T) {
	var def Settings
	if err := Load(&def, &def, "", nil, nil); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		name     string
		validate func() experiments.Problems
		want     []string // "field: message prefix"
	}{
		{"eval defaults", def.Eval.Validate, nil},
		{"backend defaults", def.Backend.Validate, nil},
		{"stats defaults", def.Stats.Validate, nil},
		{"promotion defaults", def.Promotion.Validate, nil},
		{"latency defaults", def.Latency.Validate, nil},
		{"latency", func() experiments.Problems {
			return Latency{Finalists: -1, Repeats: 0}.Validate()
		}, []string{"finalists: must be in [0, 1000]", "repeats: must be in [1, 20]"}},
		{"eval", func() experiments.Problems {
			e := def.Eval
			e.Concurrency, e.Timeout, e.K, e.OnQueryError = 0, -time.Second, 0, "panic"
			return e.Validate()
		}, []string{"concurrency: must be in [1, 256]", "timeout: must be > 0", "k: must be in [1,", "on_query_error: "}},
		{"backend", func() experiments.Problems {
			b := def.Backend
			b.Kind, b.Settle = "grpc", -time.Second
			return b.Validate()
		}, []string{`kind: must be embedded, process, http, postgres, weaviate, command or lancedb (got "grpc")`, "settle: must be >= 0"}},
		{"backend lancedb", func() experiments.Problems {
			b := def.Backend
			b.Kind, b.Template = KindLanceDB, "t.tmpl"
			b.LanceDB = LanceDB{URI: "db", Distance: "hamming", IDColumn: "doc"}
			return b.Validate()
		}, []string{"template: not for backend.kind lancedb", "lancedb.sidecar: required", "lancedb.model: required",
			"lancedb: give uri and table together", "lancedb: id_column, text_column and vector_column", `lancedb.distance: want l2, cosine, dot (got "hamming")`}},
		{"backend lancedb attach", func() experiments.Problems {
			b := def.Backend
			b.Kind = KindLanceDB
			b.LanceDB = LanceDB{Sidecar: "sidecar", Model: "file:q.jsonl", URI: "db", Table: "kb", Distance: "cosine"}
			return b.Validate()
		}, nil},
		{"backend weaviate attach without url", func() experiments.Problems {
			b := def.Backend
			b.Kind, b.Weaviate = KindWeaviate, Weaviate{Bin: "weaviate-server", Class: "Papers", Model: "lsa-64"}
			return b.Validate()
		}, []string{"weaviate.class: attach mode needs url"}},
		{"backend weaviate attach with a model", func() experiments.Problems {
			b := def.Backend
			b.Kind, b.Weaviate = KindWeaviate, Weaviate{URL: "http://127.0.0.1:8080", Class: "Papers", Model: "lsa-64"}
			return b.Validate()
		}, []string{"weaviate.model: not with class"}},
		{"backend weaviate attach settings without class", func() experiments.Problems {
			b := def.Backend
			b.Kind, b.Weaviate = KindWeaviate, Weaviate{URL: "http://127.0.0.1:8080", Model: "lsa-64", QueryVectors: "openai:x"}
			return b.Validate()
		}, []string{"weaviate.class: id_property and query_vectors are for attach mode"}},
		{"backend weaviate attach", func() experiments.Problems {
			b := def.Backend
			b.Kind, b.Weaviate = KindWeaviate, Weaviate{URL: "http://127.0.0.1:8080", Class: "Papers", QueryVectors: "openai:x"}
			return b.Validate()
		}, nil},
		{"backend process", func() experiments.Problems {
			b := def.Backend
			b.Kind = KindProcess
			return b.Validate()
		}, []string{"command: required", "template: required", "health_url: required", "search.url: required", "search.hits: required", "search.id: required"}},
		{"backend http read-only", func() experiments.Problems {
			b := def.Backend
			b.Kind, b.HealthURL = KindHTTP, "http://127.0.0.1:1/healthz"
			b.Search.URL, b.Search.Hits, b.Search.ID = "http://127.0.0.1:1/search", "hits", "id"
			return b.Validate()
		}, nil},
		{"backend http half read-only", func() experiments.Problems {
			b := def.Backend
			b.Kind, b.HealthURL, b.Template = KindHTTP, "http://127.0.0.1:1/healthz", "t.yaml.tmpl"
			b.Search.URL, b.Search.Hits, b.Search.ID = "http://127.0.0.1:1/search", "hits", "id"
			return b.Validate()
		}, []string{"restart: required", "config: required"}},
		{"backend command", func() experiments.Problems {
			b := def.Backend
			b.Kind, b.Template = KindCommand, "t.tmpl"
			b.CommandOptions = CommandOptions{Timeout: 11 * time.Minute, Concurrency: 65, Regex: "("}
			return b.Validate()
		}, []string{"template: not for backend.kind command", "command: required", "command_options.timeout: must be in (0, 10m0s]", "command_options.concurrency: must be in [1, 64]", "command_options.regex: invalid regular expression"}},
		{"backend command without output mapping", func() experiments.Problems {
			b := def.Backend
			b.Kind, b.Command = KindCommand, []string{"./search", "{query}"}
			return b.Validate()
		}, []string{"command_options.regex: required unless stdout is JSON"}},
		{"stats", func() experiments.Problems {
			st := def.Stats
			st.Correction, st.Alpha, st.Metrics = "bonferroni", 1, []string{"NDCG@10", "nope"}
			return st.Validate()
		}, []string{`correction: must be holm, bh or none (got "bonferroni")`, "alpha: must be in (0, 1) (got 1)", "metrics[1]: "}},
		{"promotion", func() experiments.Problems {
			return Promotion{Tolerance: 2, Guarded: []string{"a", ""}}.Validate()
		}, []string{"tolerance: must be a number in [0, 1] (got 2)", "guarded[1]: must name a category"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.validate()
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems %v, want %d %q", len(got), got, len(tc.want), tc.want)
			}
			for i, p := range got {
				if text := p.Field + ": " + p.Msg; !strings.HasPrefix(text, tc.want[i]) {
					t.Errorf("problem %d = %q, want prefix %q", i, text, tc.want[i])
				}
			}
		})
	}
}
