//go:build unix

package ui_test

import (
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/ui"
	"github.com/fusiontune/fusiontune/runs"
)

// BenchmarkRunPage200 renders the run page of a 200-trial run (sorted by
// a metric, the slowest order): see scripts/ui-timings.sh for the pages
// of a real 200-trial study on SciFact.
func BenchmarkRunPage200(b *testing.B) {
	store, err := runs.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	run := recordRun(b, store, 200)
	s := newServer(b, ui.Options{Store: store})
	r := httptest.NewRequest(http.MethodGet, "/run/"+run.ID()+"?sort=NDCG@10&desc=1", nil)
	cpu := processCPU()
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
	// The CPU a page costs, apart from waiting for a shared machine's cores.
	b.ReportMetric(float64(processCPU()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
