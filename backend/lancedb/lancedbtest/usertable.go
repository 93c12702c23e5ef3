package lancedbtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/lancedb"
)

// UserTable builds table t (its URI a new directory) as a user would,
// with vectors fusiontune's kind does not compute for it: every document
// of the corpus at corpusPath (one row each: the index text, a hash-48
// vector) and an FTS index on the text column, through a sidecar of
// sidecar's own that it stops again. It writes the vectors of the
// documents and of queries to vectors, a file:<path> embedder's file, and
// fails tb on any error.
func UserTable(tb testing.TB, sidecar, corpusPath string, t lancedb.Table, queries []string, vectors string) {
	tb.Helper()
	ctx := context.Background()
	c, err := corpus.Load(corpus.Config{Path: corpusPath})
	if err != nil {
		tb.Fatal(err)
	}
	chunks, texts, err := corpus.IndexTexts(c.Docs, corpus.ChunkConfig{})
	if err != nil {
		tb.Fatal(err)
	}
	emb, err := embed.New("hash-48", embed.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	var vf bytes.Buffer
	line := func(key, value string, v []float32) {
		b, _ := json.Marshal(map[string]any{key: value, "vector": v})
		vf.Write(append(b, '\n'))
	}
	rows := make([]lancedb.Row, len(chunks))
	for i, ch := range chunks {
		v, err := emb.EmbedQuery(ctx, texts[i])
		if err != nil {
			tb.Fatal(err)
		}
		rows[i] = lancedb.Row{ID: ch.DocID, Text: texts[i], Vector: v}
		line("id", ch.DocID, v)
	}
	for _, q := range queries {
		v, err := emb.EmbedQuery(ctx, q)
		if err != nil {
			tb.Fatal(err)
		}
		line("query", q, v)
	}
	if err := os.WriteFile(vectors, vf.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	s, err := lancedb.StartSidecar(ctx, lancedb.SidecarOptions{Dir: sidecar})
	if err != nil {
		tb.Fatal(err)
	}
	err = lancedb.NewClient(s.URL).Create(ctx, t, rows)
	if stopErr := s.Stop(); err == nil {
		err = stopErr
	}
	if err != nil {
		tb.Fatal(err)
	}
}

// Tree lists the files under dir with their sizes and modification
// times: equal before and after means nothing was written there.
func Tree(tb testing.TB, dir string) string {
	tb.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %d\n", path, info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b.String()
}

// Queries returns the query texts of a golden set file (native JSON).
func Queries(tb testing.TB, golden string) []string {
	tb.Helper()
	b, err := os.ReadFile(golden)
	if err != nil {
		tb.Fatal(err)
	}
	var g struct {
		Queries []struct {
			Query string `json:"query"`
		} `json:"queries"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		tb.Fatal(err)
	}
	out := make([]string, len(g.Queries))
	for i, q := range g.Queries {
		out[i] = q.Query
	}
	return out
}
