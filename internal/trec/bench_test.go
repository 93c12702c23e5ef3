package trec_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/fusiontune/fusiontune/internal/trec"
)

// benchRun is a 100-query x 1,000-result run.
func benchRun() []byte {
	var buf bytes.Buffer
	for q := range 100 {
		for d := range 1000 {
			fmt.Fprintf(&buf, "q%d Q0 D%d %d %.6f bench\n", q, q*7919+d*104729%1000003, d+1, 100-float64(d)*0.01)
		}
	}
	return buf.Bytes()
}

// BenchmarkReadRun parses a 100-query x 1,000-result run held in memory.
func BenchmarkReadRun(b *testing.B) {
	data := benchRun()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := trec.ReadRun(bytes.NewReader(data), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanRunTransient scans the same run without keeping it.
func BenchmarkScanRunTransient(b *testing.B) {
	data := benchRun()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := trec.ScanRunTransient(bytes.NewReader(data), "bench", func(string, []trec.Result) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadJudgments parses 1,000 queries x 60 judgments.
func BenchmarkReadJudgments(b *testing.B) {
	var buf bytes.Buffer
	for q := range 1000 {
		for d := range 60 {
			fmt.Fprintf(&buf, "q%d 0 D%d %d\n", q, (q*7919+d*104729)%1000003, d%3)
		}
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := trec.ReadJudgments(bytes.NewReader(data), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}
