package embed_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/embed"
)

func TestNew(t *testing.T) {
	vectors := filepath.Join("testdata", "vectors.jsonl")
	tests := []struct {
		spec    string
		name    string // want Name(); empty means New must fail
		dim     int
		wantErr string
	}{
		{spec: "lsa-256", name: "lsa-256", dim: 256},
		{spec: "hash-64", name: "hash-64", dim: 64},
		{spec: "openai:text-embedding-3-small", name: "openai:text-embedding-3-small", dim: 0},
		{spec: "file:" + vectors, name: "file:" + vectors, dim: 3},
		{spec: "bert", wantErr: `unknown embedder "bert" (want lsa-<dim>, hash-<dim>, openai:<model> or file:<path>)`},
		{spec: "", wantErr: `unknown embedder ""`},
		{spec: "lsa-0", wantErr: `"lsa-0": dimension must be an integer from 1 to 8192 (got "0")`},
		{spec: "hash-x", wantErr: `"hash-x": dimension must be an integer`},
		{spec: "hash-100000", wantErr: `(got "100000")`},
		{spec: "openai:", wantErr: `missing model name`},
		{spec: "file:", wantErr: `missing path`},
		{spec: "file:testdata/absent.jsonl", wantErr: `absent.jsonl: no such file`},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			e, err := embed.New(tt.spec, embed.Options{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Name() != tt.name || e.Dim() != tt.dim {
				t.Errorf("got %s dim %d, want %s dim %d", e.Name(), e.Dim(), tt.name, tt.dim)
			}
		})
	}
	if _, err := embed.New("openai:m", embed.Options{BaseURL: "ftp://x"}); err == nil || !strings.Contains(err.Error(), `"ftp://x"`) {
		t.Errorf("bad base url: got %v", err)
	}
	if _, err := os.Stat(vectors); err != nil {
		t.Fatal(err)
	}
}
