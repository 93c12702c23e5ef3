package trec_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/fusiontune/fusiontune/internal/trec"
)

// BenchmarkReadRun parses a 100-query x 1,000-result run held in memory.
func BenchmarkReadRun(b *testing.B) {
	var buf bytes.Buffer
	for q := range 100 {
		for d := range 1000 {
			fmt.Fprintf(&buf, "q%d Q0 D%d %d %.6f bench\n", q, q*7919+d*104729%1000003, d+1, 100-float64(d)*0.01)
		}
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := trec.ReadRun(bytes.NewReader(data), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}
