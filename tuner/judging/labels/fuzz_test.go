package labels_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// FuzzReadJSONL: whatever it reads are valid labels that write and read
// back the same; it never panics.
func FuzzReadJSONL(f *testing.F) {
	f.Add(`{"dataset":"demo","query":"q1","doc":"d1","grade":2,"judge":"alice","source":"human","time":"2026-11-24T10:00:00Z"}`)
	f.Add(`{"dataset":"demo","query":"q1","doc":"d1","grade":0,"judge":"llm:m@12345678","source":"llm","rationale":"r","confidence":0.5}` + "\n\n")
	f.Add(`{"dataset":"","query":"q1"}`)
	f.Fuzz(func(t *testing.T, in string) {
		ls, err := labels.ReadJSONL(strings.NewReader(in), "f.jsonl")
		if err != nil {
			return
		}
		for _, l := range ls {
			if err := l.Validate(); err != nil {
				t.Fatalf("read an invalid label: %v", err)
			}
		}
		var b bytes.Buffer
		if err := labels.WriteJSONL(&b, ls); err != nil {
			t.Fatal(err)
		}
		again, err := labels.ReadJSONL(&b, "again.jsonl")
		if err != nil || len(again) != len(ls) {
			t.Fatalf("round trip: %v, %d labels, want %d", err, len(again), len(ls))
		}
		for i := range ls {
			if again[i] != ls[i] && !(again[i].Time.Equal(ls[i].Time)) {
				t.Fatalf("round trip changed %+v to %+v", ls[i], again[i])
			}
		}
	})
}
