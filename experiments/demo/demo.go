package demo

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// Corpus is corpus.jsonl (BEIR format).
//
//go:embed corpus.jsonl
var Corpus []byte

// Golden is golden.json (native golden-set format).
//
//go:embed golden.json
var Golden []byte

// Extract writes the demo files under dir/demo-<hash>/ (once; the hash
// covers both files) and returns that directory.
func Extract(dir string) (string, error) {
	h := sha256.New()
	h.Write(Corpus)
	h.Write(Golden)
	out := filepath.Join(dir, "demo-"+hex.EncodeToString(h.Sum(nil))[:12])
	if _, err := os.Stat(filepath.Join(out, "golden.json")); err == nil {
		return out, nil
	}
	tmp, err := os.MkdirTemp(dir, ".demo-*")
	if err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	for name, data := range map[string][]byte{"corpus.jsonl": Corpus, "golden.json": Golden} {
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			os.RemoveAll(tmp)
			return "", fmt.Errorf("demo: %w", err)
		}
	}
	if err := os.Rename(tmp, out); err != nil {
		os.RemoveAll(tmp)
		if _, statErr := os.Stat(filepath.Join(out, "golden.json")); statErr == nil {
			return out, nil // extracted concurrently
		}
		return "", fmt.Errorf("demo: %w", err)
	}
	return out, nil
}
