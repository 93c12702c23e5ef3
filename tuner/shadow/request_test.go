package shadow

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/metrics/stats"
)

// TestRequest: flags that need no file are checked first, each an input
// error naming its flag; a good request reads the log and both sides.
func TestRequest(t *testing.T) {
	sprt := stats.SPRTOptions{Alpha: 0.05, Beta: 0.2, Effect: 0.02, BurnIn: stats.DefaultSPRTBurnIn}
	log := filepath.Join(t.TempDir(), "q.log")
	if err := os.WriteFile(log, []byte(`{"type":"search","time":"2026-11-24T07:00:00Z","request_id":"r1","query":"a"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := Request{Logs: log, Control: "log", Treatment: "log", K: 10, Metric: "NDCG@10", SPRT: sprt}
	tests := []struct {
		name string
		edit func(*Request)
		want string
	}{
		{"bad metric", func(r *Request) { r.Metric = "nope" }, "shadow: --metric: "},
		{"qrels and dataset", func(r *Request) { r.Qrels, r.Dataset = "q", "d" }, "shadow: give --qrels or --dataset, not both"},
		{"bad alpha", func(r *Request) { r.SPRT.Alpha = 0.9 }, "shadow: --alpha"},
		{"missing log", func(r *Request) { r.Logs = log + ".none" }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := good
			tt.edit(&r)
			_, err := r.Config(context.Background())
			var ie *inputerr.Error
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want an input error containing %q", err, tt.want)
			}
		})
	}
	c, err := good.Config(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Log.Searches) != 1 || c.Control.Name != "log" || c.Options.K != 10 || c.Options.Metric.String() != "NDCG@10" {
		t.Errorf("config: %d searches, control %q, options %+v", len(c.Log.Searches), c.Control.Name, c.Options)
	}
}
