package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments/shareddata"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/engine"
)

// sharedData is shareddata.Path: ../shared/data/<name>, or a skip.
func sharedData(tb testing.TB, name string) string { return shareddata.Path(tb, name) }

// query is one line of a BEIR queries.jsonl.
type query struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

func readQueries(tb testing.TB, path string) []query {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var qs []query
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q query
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			tb.Fatal(err)
		}
		qs = append(qs, q)
	}
	return qs
}

// tinyConfig returns the fixture engine config with its cache in a fresh
// temporary directory, adjusted by edit.
func tinyConfig(tb testing.TB, edit func(*engine.Config)) engine.Config {
	tb.Helper()
	c, err := engine.LoadConfig("testdata/tiny.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	c.CacheDir = tb.TempDir()
	if edit != nil {
		edit(&c)
	}
	return c
}

// build returns a built engine for c, closed when the test ends.
func build(tb testing.TB, c engine.Config) *engine.Engine {
	tb.Helper()
	e, err := engine.New(c, engine.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if err := e.Build(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

// scifactConfig is SciFact, whole documents, BM25 only, cached in dir.
func scifactConfig(tb testing.TB, dir string) engine.Config {
	c := engine.DefaultConfig()
	c.Corpus = corpus.Config{Path: filepath.Join(sharedData(tb, "scifact"), "corpus.jsonl"), Format: corpus.FormatBEIR}
	c.Retrievers = []string{engine.BM25}
	c.CacheDir = dir
	return c
}

// recorder is a minimal http.ResponseWriter for calling a handler directly.
type recorder struct {
	header http.Header
	status int
	body   strings.Builder
}

func newRecorder() *recorder { return &recorder{header: http.Header{}, status: 200} }

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(s int)           { r.status = s }

func mustRequest(tb testing.TB, method, path string) *http.Request {
	req, err := http.NewRequest(method, path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return req
}
