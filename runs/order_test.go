package runs_test

import (
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

// TestRunsStartedInOneSecond: two runs started in the same second (their
// ids differ only in the random part) are listed, and resolved as
// "latest", in the order they started, whichever id sorts first.
func TestRunsStartedInOneSecond(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 33, 15, 100, time.UTC)
	reversed := 0
	for attempt := 0; attempt < 40 && reversed < 3; attempt++ {
		st, err := runs.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		first, err := st.Create(runs.Manifest{}, t0)
		if err != nil {
			t.Fatal(err)
		}
		second, err := st.Create(runs.Manifest{}, t0.Add(400*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if second.ID() < first.ID() {
			reversed++
		}
		list, err := st.List()
		if err != nil || len(list) != 2 || list[0].ID() != first.ID() || list[1].ID() != second.ID() {
			t.Fatalf("list %v (%v), want %s then %s", ids(list), err, first.ID(), second.ID())
		}
		latest, err := st.Resolve("latest")
		if err != nil || latest.ID() != second.ID() {
			t.Fatalf("latest %v (%v), want %s", latest, err, second.ID())
		}
	}
	if reversed == 0 {
		t.Fatal("no attempt gave the later run the smaller id: the test checked nothing")
	}
}

func ids(rs []*runs.Run) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID())
	}
	return out
}
