package querylog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRead: any bytes either read (every event kept passes Check, every
// feedback and shadow event names a search read before it) or fail with
// an error naming the file and line; with SkipBad they never fail.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"testdata/good.jsonl", "testdata/base.jsonl"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"type":"shadow","time":"2026-11-24T07:00:05Z","request_id":"r1","results":[],"diff":{"class":"minor"}}`))
	f.Add([]byte("\xef\xbb\xbf{}\n\n[1]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "q.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		log, err := Read([]string{path}, ReadOptions{})
		if err != nil {
			if !strings.Contains(err.Error(), path+":") {
				t.Fatalf("error names no line: %v", err)
			}
		} else {
			check(t, log)
		}
		log, err = Read([]string{path}, ReadOptions{SkipBad: true})
		if err != nil {
			t.Fatalf("SkipBad failed: %v", err)
		}
		check(t, log)
	})
}

func check(t *testing.T, log *Log) {
	ids := map[string]bool{}
	for _, e := range log.Searches {
		if p := e.Check(); p != "" || ids[e.RequestID] {
			t.Fatalf("kept a bad search %+v: %s", e, p)
		}
		ids[e.RequestID] = true
	}
	for _, e := range append(log.Feedback, log.Shadows...) {
		if p := e.Check(); p != "" || !ids[e.RequestID] {
			t.Fatalf("kept a bad event %+v: %s", e, p)
		}
	}
}
