package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/embed"
)

// goEmbedder is the embedder spec fitted on the engine's tiny corpus as
// the Go packages build it: what tune embed must reproduce.
func goEmbedder(t *testing.T, spec, path string) (embed.Embedder, []string, []string) {
	t.Helper()
	c, err := corpus.Load(corpus.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	chunks, texts, err := corpus.IndexTexts(c.Docs, corpus.ChunkConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(chunks))
	for i, ch := range chunks {
		ids[i] = ch.DocID
	}
	e, err := embed.ForQueries(context.Background(), spec, embed.Options{}, texts)
	if err != nil {
		t.Fatal(err)
	}
	return e, ids, texts
}

// TestEmbedServes starts tune embed --listen and asks its
// /v1/embeddings over loopback HTTP, as an OpenAI client would: every
// vector equals the Go embedder's, for lsa (fitted on the corpus) and
// hash; a bad request is a 400 with an error object.
func TestEmbedServes(t *testing.T) {
	corpusPath, err := filepath.Abs("../../backend/engine/testdata/tiny/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	inputs := []string{"solar panels on roofs", "what is photosynthesis", ""}
	for _, spec := range []string{"lsa-16", "hash-64"} {
		t.Run(spec, func(t *testing.T) {
			ready := filepath.Join(t.TempDir(), "ready")
			cmd := exec.Command(tuneBinary(t), "embed", "--model", spec, "--corpus", corpusPath, "--listen", "127.0.0.1:0", "--ready-file", ready)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			defer func() {
				if cmd.ProcessState == nil {
					_ = cmd.Process.Kill()
					<-done
				}
			}()
			addr := waitReady(t, ready, &stderr)
			post := func(body string) (int, []byte) {
				resp, err := http.Post("http://"+addr+"/v1/embeddings", "application/json", strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var buf bytes.Buffer
				_, _ = buf.ReadFrom(resp.Body)
				return resp.StatusCode, buf.Bytes()
			}
			req, _ := json.Marshal(map[string]any{"model": spec, "input": inputs})
			code, body := post(string(req))
			if code != http.StatusOK {
				t.Fatalf("POST /v1/embeddings: %d %s", code, body)
			}
			var got struct {
				Object string `json:"object"`
				Model  string `json:"model"`
				Data   []struct {
					Embedding []float32 `json:"embedding"`
					Index     int       `json:"index"`
				} `json:"data"`
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if got.Object != "list" || got.Model != spec || len(got.Data) != len(inputs) {
				t.Fatalf("answer: object %q, model %q, %d vectors; want list, %s, %d", got.Object, got.Model, len(got.Data), spec, len(inputs))
			}
			e, _, _ := goEmbedder(t, spec, corpusPath)
			for i, in := range inputs {
				want, err := e.EmbedQuery(context.Background(), in)
				if err != nil {
					t.Fatal(err)
				}
				if got.Data[i].Index != i || !slices.Equal(got.Data[i].Embedding, want) {
					t.Errorf("input %q: index %d, vector %v; want index %d, the Go embedder's %v", in, got.Data[i].Index, got.Data[i].Embedding[:4], i, want[:4])
				}
			}
			for _, bad := range []struct{ body, want string }{
				{`{"model": "lsa-999", "input": ["x"]}`, `model \"lsa-999\": this server embeds with ` + spec},
				{`{"model": "` + spec + `", "input": []}`, "input: want 1 to 2048 strings (got 0)"},
				{`{"model": "` + spec + `", "input": [[1, 2]]}`, "input: want a string or a list of strings"},
				{`{"model": `, "body: unexpected EOF"},
			} {
				if code, body := post(bad.body); code != http.StatusBadRequest || !strings.Contains(string(body), bad.want) {
					t.Errorf("%s: %d %s, want 400 with %q", bad.body, code, body, bad.want)
				}
			}
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("after SIGTERM: %v; stderr:\n%s", err, stderr.String())
				}
			case <-time.After(20 * time.Second):
				t.Fatal("no exit 20 s after SIGTERM")
			}
		})
	}
}

// waitReady waits for a ready file and returns the address in it.
func waitReady(t *testing.T, ready string, stderr *bytes.Buffer) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if data, err := os.ReadFile(ready); err == nil {
			return strings.TrimSpace(string(data))
		}
		if time.Now().After(deadline) {
			t.Fatalf("no ready file after 60 s; stderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestEmbedWritesVectors checks tune embed --docs and --queries: the
// files are in the file:<path> format (embed.LoadFile reads them back)
// and hold the Go embedder's vectors; bad flags exit 2 naming the flag.
func TestEmbedWritesVectors(t *testing.T) {
	corpusPath, err := filepath.Abs("../../backend/engine/testdata/tiny/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	topics := filepath.Join(dir, "queries.tsv")
	if err := os.WriteFile(topics, []byte("q1\tsolar panels\nq2\twhat is photosynthesis\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runTune(t, dir, "embed", "--model", "lsa-16", "--corpus", corpusPath, "--docs", "docs.jsonl", "--queries", topics)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "queries.jsonl"), []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, err := embed.LoadFile(filepath.Join(dir, "docs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := embed.LoadFile(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	e, ids, texts := goEmbedder(t, "lsa-16", corpusPath)
	ctx := context.Background()
	want, err := e.EmbedDocuments(ctx, ids, texts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := docs.EmbedDocuments(ctx, ids, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ids {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("document %s: written %v, the Go embedder's %v", ids[i], got[i][:3], want[i][:3])
		}
	}
	for _, q := range []string{"solar panels", "what is photosynthesis"} {
		w, _ := e.EmbedQuery(ctx, q)
		g, err := qs.EmbedQuery(ctx, q)
		if err != nil || !slices.Equal(g, w) {
			t.Errorf("query %q: written %v (%v), the Go embedder's %v", q, g, err, w)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"embed", "--model", "openai:x", "--corpus", corpusPath, "--docs", "d"}, `--model: want a built-in embedder, lsa-<dim> or hash-<dim> (got "openai:x")`},
		{[]string{"embed", "--model", "lsa-16", "--corpus", corpusPath}, "give --docs, --queries or --listen"},
		{[]string{"embed", "--model", "lsa-0", "--corpus", corpusPath, "--docs", "d"}, "--model: "},
		{[]string{"embed", "--model", "hash-8", "--corpus", "missing.jsonl", "--docs", "d"}, "--corpus: "},
	} {
		_, stderr, code := runTune(t, dir, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "d")); err == nil {
		t.Error("a refused run wrote --docs")
	}
}
