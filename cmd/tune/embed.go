package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/httpserve"
)

var embedSpec = cli.Spec{Name: "embed", Usage: "--model lsa-256|hash-<dim> --corpus FILE [--docs OUT] [--queries FILE] [--listen ADDR [--ready-file PATH]]", Args: cli.NoArgs, Flags: []cli.Flag{
	cli.String("model", "", "built-in embedder `spec`: lsa-<dim> (fitted on the corpus) or hash-<dim>").Required(),
	cli.String("corpus", "", "corpus `file` (BEIR corpus.jsonl or JSON lines) the vectors belong to: lsa fits on it; each document is embedded whole (title, blank line, text)").Required(),
	cli.String("docs", "", "write every document's vector to this `file` as JSON lines {\"id\", \"vector\"}"),
	cli.String("queries", "", "embed the queries of this topics `file` (JSONL {_id, text} or id<TAB>text) and print {\"query\", \"vector\"} lines on stdout"),
	cli.String("listen", "", "serve POST /v1/embeddings (OpenAI-compatible) on this `address` until interrupted (port 0 picks a free port)"),
	cli.String("ready-file", "", "write the bound address to this `file` once serving"),
}}

func runEmbed(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(embedSpec, args)
	if err != nil {
		return err
	}
	model := fs.Str("model")
	if !strings.HasPrefix(model, "lsa-") && !strings.HasPrefix(model, "hash-") {
		return cli.UsageErrorf("--model: want a built-in embedder, lsa-<dim> or hash-<dim> (got %q)", model)
	}
	if fs.Str("docs") == "" && fs.Str("queries") == "" && fs.Str("listen") == "" {
		return cli.UsageErrorf("give --docs, --queries or --listen (or several)")
	}
	if _, err := embed.New(model, embed.Options{}); err != nil {
		return cli.UsageErrorf("--model: %v", err)
	}
	var queries []experiments.Query
	if p := fs.Str("queries"); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			return cli.InputError(fmt.Errorf("--queries: %w", err))
		}
		if queries, err = experiments.ParseTopics(p, data); err != nil {
			return cli.InputError(err)
		}
	}
	c, err := corpus.Load(corpus.Config{Path: fs.Str("corpus")})
	if err != nil {
		return cli.InputError(fmt.Errorf("--corpus: %w", err))
	}
	chunks, texts, err := corpus.IndexTexts(c.Docs, corpus.ChunkConfig{})
	if err != nil {
		return cli.InputError(fmt.Errorf("--corpus: %w", err))
	}
	start := time.Now()
	e, err := embed.ForQueries(ctx, model, embed.Options{}, texts)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "tune embed: %s ready on %d documents in %v\n", model, len(texts), time.Since(start).Round(time.Millisecond))
	if p := fs.Str("docs"); p != "" {
		ids := make([]string, len(chunks))
		for i, ch := range chunks {
			ids[i] = ch.DocID
		}
		vecs, err := e.EmbedDocuments(ctx, ids, texts)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		for i, id := range ids {
			_ = embed.WriteDocument(&buf, id, vecs[i]) // a bytes.Buffer does not fail
		}
		if err := atomicfile.Write(p, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("--docs: %w", err)
		}
		fmt.Fprintf(a.stderr, "tune embed: wrote %d document vectors to %s\n", len(ids), p)
	}
	bw := bufio.NewWriter(a.stdout)
	for _, q := range queries {
		v, err := e.EmbedQuery(ctx, q.Text)
		if err != nil {
			return err
		}
		if err := embed.WriteQuery(bw, q.Text, v); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if fs.Str("listen") == "" {
		return nil
	}
	return serveEmbeddings(ctx, a, fs.Str("listen"), fs.Str("ready-file"), map[string]embed.Embedder{model: e})
}

// serveEmbeddings serves embed.Handler on listen until ctx ends.
func serveEmbeddings(ctx context.Context, a *app, listen, readyFile string, models map[string]embed.Embedder) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return cli.UsageErrorf("--listen: %v", err)
	}
	return httpserve.Serve(ctx, embed.Handler(models), ln, readyFile, func(addr string) {
		fmt.Fprintf(a.stderr, "tune embed: serving POST http://%s/v1/embeddings\n", addr)
	})
}
