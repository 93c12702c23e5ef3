package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
)

// InitProject writes a starter project into dir (created when missing):
// experiments.Scaffold's files, whose golden-set skeleton judges documents
// of corpus when it is not "". It never overwrites a file: when one
// exists, nothing is written. It returns the paths written; errors the
// user can fix are input errors (inputerr.Error).
func InitProject(dir, corpus string) ([]string, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("--dir: %w", err))
	}
	var docs []experiments.Document
	rel := ""
	if corpus != "" {
		if docs, err = CorpusDocuments(corpus); err != nil {
			return nil, inputerr.Wrap(fmt.Errorf("--corpus: %w", err))
		}
		if len(docs) == 0 {
			return nil, inputerr.Wrap(fmt.Errorf("--corpus %s: no documents", corpus))
		}
		abs, err := filepath.Abs(corpus)
		if err != nil {
			return nil, inputerr.Wrap(fmt.Errorf("--corpus: %w", err))
		}
		if rel, err = filepath.Rel(absDir, abs); err != nil {
			rel = abs
		}
		rel = filepath.ToSlash(rel)
	}
	files, err := experiments.Scaffold(rel, docs)
	if err != nil {
		return nil, err
	}
	var exist []string
	for _, f := range files {
		p := filepath.Join(dir, f.Name)
		if _, err := os.Lstat(p); err == nil {
			exist = append(exist, p)
		}
	}
	if len(exist) > 0 {
		return nil, inputerr.Wrap(fmt.Errorf("init: not overwriting %s: nothing written (move the file(s) away or choose another --dir)", strings.Join(exist, ", ")))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("--dir: %w", err))
	}
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, f.Name)
		if err := writeNew(p, f.Data); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// writeNew creates path with data, failing when it exists.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, os.ErrExist) {
		return inputerr.Wrap(fmt.Errorf("init: %s already exists; not overwritten", path))
	}
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("init: %w", err)
	}
	return f.Close()
}
