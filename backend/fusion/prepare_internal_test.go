package fusion

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestPrepareDocumentView: Prepare's document view is the view buildView
// gives with document keys, whether it shares the passage view (every
// candidate its own document: DocID empty or equal to ID) or builds its
// own (chunks, or one chunk among documents).
func TestPrepareDocumentView(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 3))
	list := func(n int, id func(d int) (string, string)) []Candidate {
		out := make([]Candidate, n)
		for i := range out {
			d := rng.IntN(2 * n / 3)
			out[i].ID, out[i].DocID = id(d)
			out[i].Score = float64(n - i)
		}
		return out
	}
	docs := func(d int) (string, string) { return fmt.Sprintf("d%03d", d), fmt.Sprintf("d%03d", d) }
	noDocID := func(d int) (string, string) { return fmt.Sprintf("d%03d", d), "" }
	chunks := func(d int) (string, string) { return fmt.Sprintf("d%03d#%d", d, d%3), fmt.Sprintf("d%03d", d) }
	tests := []struct {
		name   string
		lists  map[string][]Candidate
		shared bool
	}{
		{"documents", map[string][]Candidate{"bm25": list(100, docs), "dense": list(100, docs)}, true},
		{"empty doc ids", map[string][]Candidate{"bm25": list(100, noDocID), "dense": list(50, docs)}, true},
		{"chunks", map[string][]Candidate{"bm25": list(100, chunks), "dense": list(100, chunks)}, false},
		{"one chunk", map[string][]Candidate{"bm25": list(100, docs), "dense": append(list(10, docs), Candidate{ID: "d001#2", DocID: "d001"})}, false},
		{"no lists", map[string][]Candidate{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := Prepare(tt.lists)
			ordered := make([][]Candidate, len(pl.names))
			for i, name := range pl.names {
				ordered[i] = tt.lists[name]
			}
			want := buildView(ordered, docOf, docOf)
			if !reflect.DeepEqual(pl.document, want) {
				t.Fatalf("document view differs from buildView's")
			}
			if shared := len(pl.document.ids) > 0 && &pl.document.ids[0] == &pl.passage.ids[0]; shared != (tt.shared && len(want.ids) > 0) {
				t.Errorf("shares the passage view: %v, want %v", shared, tt.shared)
			}
		})
	}
}
