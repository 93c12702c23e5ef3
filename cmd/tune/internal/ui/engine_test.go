package ui_test

import (
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/engine/enginetest"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// engineFactory is the embedded engine as a backend kind, run in this
// process (a real engine served on loopback HTTP and searched with the
// real client) instead of a tune serve process: the microscope tests need
// no tune binary.
type engineFactory struct{ base engine.Config }

var (
	_ backend.Factory        = (*engineFactory)(nil)
	_ backend.FusionResolver = (*engineFactory)(nil)
)

// newEngineFactory is the engine on the corpus at path (BEIR) with the hashed dense
// model, its index cache in a temporary directory.
func newEngineFactory(t *testing.T, path string) *engineFactory {
	cfg := engine.DefaultConfig()
	cfg.Corpus.Path, cfg.Corpus.Format = path, corpus.FormatBEIR
	cfg.Dense.Model = "hash-384"
	cfg.CacheDir = filepath.Join(t.TempDir(), "cache")
	cfg.Listen = "127.0.0.1:0"
	return &engineFactory{base: cfg}
}

func (f *engineFactory) Check(p map[string]any) error { _, err := f.base.WithParams(p); return err }
func (f *engineFactory) Describe(p map[string]any) string {
	c, err := f.base.WithParams(p)
	return fmt.Sprint(c, err)
}
func (f *engineFactory) Fusion(p map[string]any) (fusion.Settings, error) {
	c, err := f.base.WithParams(p)
	return c.FusionSettings(), err
}
func (f *engineFactory) Open(string, io.Writer) (backend.Backend, error) {
	return enginetest.NewBackend(f.base), nil
}
