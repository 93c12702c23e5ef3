package render_test

import (
	"errors"
	"testing"

	"github.com/fusiontune/fusiontune/backend/render"
)

// TestMemo: each distinct params is rendered once, equal maps built in
// another order hit the same entry, errors are remembered too, callers
// get copies, and a full cache starts over.
func TestMemo(t *testing.T) {
	calls := 0
	r := render.Memo(func(p map[string]any) ([]byte, error) {
		calls++
		if p["bad"] != nil {
			return nil, errors.New("bad value")
		}
		if p["fn"] != nil {
			return []byte("direct"), nil
		}
		return render.YAMLOverlay(map[string]any{"fusion": map[string]any{"k": 60}})(p)
	}, 3)
	a := map[string]any{"fusion.k": 10, "fusion.weights.bm25": 0.3}
	b := map[string]any{"fusion.weights.bm25": 0.3, "fusion.k": 10}
	first, err := r(a)
	if err != nil {
		t.Fatal(err)
	}
	first[0] = '#' // a caller changing its copy
	second, err := r(b)
	if err != nil || calls != 1 || second[0] == '#' {
		t.Fatalf("second render: %q, %v after %d calls", second, err, calls)
	}
	for range 2 {
		if _, err := r(map[string]any{"bad": 1}); err == nil || err.Error() != "bad value" {
			t.Errorf("error not kept: %v", err)
		}
	}
	if calls != 2 {
		t.Errorf("%d renders for two distinct params, want 2", calls)
	}
	r(map[string]any{"fusion.k": 1})
	r(map[string]any{"fusion.k": 2}) // the fourth distinct: the cache starts over
	r(a)
	if calls != 5 {
		t.Errorf("%d renders, want 5 (the cache holds at most 3)", calls)
	}
	fn := map[string]any{"fn": func() {}} // JSON cannot key it
	r(fn)
	if out, err := r(fn); err != nil || string(out) != "direct" || calls != 7 {
		t.Errorf("unencodable params: %q, %v after %d renders, want each rendered directly (7)", out, err, calls)
	}
}
