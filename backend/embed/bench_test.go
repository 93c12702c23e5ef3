package embed_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/backend/embed"
)

// BenchmarkEmbedQuery embeds a short query with each local embedder (lsa
// fitted on 2,000 synthetic documents). The openai client has its own
// benchmark against a loopback server.
func BenchmarkEmbedQuery(b *testing.B) {
	lsa := fitLSA(b, 256, zipfCorpus(2000, 80, 5000))
	file, err := embed.LoadFile(filepath.Join("testdata", "vectors.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	tests := []struct {
		name  string
		e     embed.Embedder
		query string
	}{
		{"lsa-256", lsa, "wb wc wd wbb wcb wdb wbc"},
		{"hash-256", embed.NewHash(256), "what is reciprocal rank fusion in hybrid search"},
		{"file", file, "what is fusion"},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tt.e.EmbedQuery(context.Background(), tt.query); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
