package lancedb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fusiontune/fusiontune/backend"
)

var _ backend.Verifier = (*Factory)(nil)

// ReadConfig reads a production config (a trial's recorded Config): the
// query parameters an application passes to LanceDB (k to
// RRFReranker.create, limit to the hybrid query) and the table and
// columns they run on. Unknown fields are errors.
func ReadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("lancedb: production config: %w", err)
	}
	var c Config
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("lancedb: %s: %w", path, err)
	}
	var probs []string
	switch {
	case c.Mode != "sandbox" && c.Mode != "attach":
		probs = append(probs, fmt.Sprintf("mode: want sandbox or attach (got %q)", c.Mode))
	case c.Mode == "attach" && (c.URI == "" || c.Table == ""):
		probs = append(probs, "attach: uri and table are required")
	case c.Mode == "sandbox" && c.Corpus == "":
		probs = append(probs, "sandbox: corpus is required")
	}
	if !contains(Distances, c.Distance) {
		probs = append(probs, fmt.Sprintf("distance: want l2, cosine or dot (got %q)", c.Distance))
	}
	if _, err := Translate(c.params()); err != nil {
		probs = append(probs, err.Error())
	}
	if len(probs) > 0 {
		return Config{}, fmt.Errorf("lancedb: %s: %v", path, errors.Join(errorsOf(probs)...))
	}
	return c, nil
}

func errorsOf(probs []string) []error {
	out := make([]error, len(probs))
	for i, p := range probs {
		out[i] = errors.New(p)
	}
	return out
}

// params returns c's trial as parameters.
func (c Config) params() map[string]any {
	return map[string]any{backend.ParamFusionK: c.K, backend.ParamLimit: c.Limit, backend.ParamDenseModel: c.Model}
}

// Verify brings LanceDB up on a production config for a promotion: a
// sidecar of its own (files in scratch), the config's table (attach: the
// user's, opened read-only; sandbox: built again in scratch from the
// corpus and embedder the config names, which the sweep's exact vector
// search and FTS answer alike), its query parameters applied, and check
// run against it; then the sidecar stops. A config that does not exist
// (the rollback of a first promotion) installs nothing.
func (f *Factory) Verify(config, scratch string, log io.Writer, check func(context.Context, backend.Searcher) error) (func(context.Context) error, error) {
	if log == nil {
		log = io.Discard
	}
	return func(ctx context.Context) (err error) {
		if _, err := os.Stat(config); errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(log, "lancedb: %s does not exist: nothing to install\n", config)
			return nil
		}
		c, err := ReadConfig(config)
		if err != nil {
			return err
		}
		g := *f
		g.o.Distance, g.o.IDColumn, g.o.TextColumn, g.o.VectorColumn = c.Distance, c.IDColumn, c.TextColumn, c.VectorColumn
		if c.Mode == "attach" {
			g.o.URI, g.o.Table = c.URI, c.Table
			g.o.Model = c.Model
		} else {
			g.o.URI, g.o.Table = "", ""
			g.o.Corpus.Path = c.Corpus
		}
		dir, err := os.MkdirTemp(scratch, "lancedb-")
		if err != nil {
			return fmt.Errorf("lancedb: %w", err)
		}
		b, err := g.Open(dir, log)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, b.Close()) }()
		if err := b.Apply(ctx, c.params()); err != nil {
			return err
		}
		if err := b.Ready(ctx); err != nil {
			return err
		}
		fmt.Fprintf(log, "lancedb: %s: table %s, k %g, limit %d\n", config, c.Table, c.K, c.Limit)
		if check != nil {
			return check(ctx, b)
		}
		return nil
	}, nil
}
