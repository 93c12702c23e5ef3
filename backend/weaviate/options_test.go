package weaviate_test

import (
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/weaviate"
)

// TestNewChecksEverySetting: New refuses every setting it can check
// without a server (so a sweep refuses them before its run directory
// exists), each named.
func TestNewChecksEverySetting(t *testing.T) {
	base := weaviate.Options{URL: "http://127.0.0.1:8080", Model: "hash-64", Corpus: corpus.Config{Path: "corpus.jsonl"}}
	tests := []struct {
		name string
		set  func(o *weaviate.Options)
		want string // "" accepted
	}{
		{"valid", func(o *weaviate.Options) {}, ""},
		{"valid class prefix", func(o *weaviate.Options) { o.ClassPrefix = "Team_2" }, ""},
		{"url scheme", func(o *weaviate.Options) { o.URL = "ftp://127.0.0.1:8080" }, `url: want an http:// or https:// URL such as http://127.0.0.1:8080 (got "ftp://127.0.0.1:8080")`},
		{"url without host", func(o *weaviate.Options) { o.URL = "http://" }, `url: want an http:// or https:// URL`},
		{"url port", func(o *weaviate.Options) { o.URL = "http://127.0.0.1:99999" }, `url: port must be a number from 1 to 65535 (got "99999")`},
		{"url credentials", func(o *weaviate.Options) { o.URL = "http://admin:pw-secret@127.0.0.1:8080" }, "url: a URL with credentials (user:password@)"},
		{"missing binary", func(o *weaviate.Options) { o.URL, o.Bin = "", "/nonexistent/weaviate-server" }, "bin: weaviate-server not found"},
		{"class prefix with GraphQL", func(o *weaviate.Options) { o.ClassPrefix = "X { Get { Y" }, `class_prefix: want an upper-case letter then up to 63 letters, digits or _, e.g. Fusiontune (got "X { Get { Y")`},
		{"class prefix lower case", func(o *weaviate.Options) { o.ClassPrefix = "fusiontune" }, "class_prefix: want an upper-case letter"},
		{"class prefix too long", func(o *weaviate.Options) { o.ClassPrefix = "A" + strings.Repeat("b", 64) }, "class_prefix: want an upper-case letter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base
			tt.set(&o)
			_, err := weaviate.New(o)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want %q", err, tt.want)
			case err != nil && strings.Contains(err.Error(), "pw-secret"):
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}
