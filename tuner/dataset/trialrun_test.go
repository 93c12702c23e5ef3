package dataset_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/runs"
)

// TestTrialRun: a recorded ranking in the tie rule's order is exported with
// its own scores; one that is not (ties by id ascending, as an external
// backend may serve them) gets rank values for every query, which keep the
// recorded order under any evaluator. A document ranked twice keeps its
// first rank; failed and unjudged queries are left out.
func TestTrialRun(t *testing.T) {
	doc := func(id string, s float64) runs.RankedDoc { return runs.RankedDoc{DocID: id, Score: s, Grade: -1} }
	tests := []struct {
		name       string
		q1         []runs.RankedDoc
		want       map[string][]trec.Result
		rankScores bool
	}{
		{"tie rule order", []runs.RankedDoc{doc("b", 2), doc("c", 1), doc("b", 1), doc("a", 1)},
			map[string][]trec.Result{"q1": {{DocNo: "b", Score: 2}, {DocNo: "c", Score: 1}, {DocNo: "a", Score: 1}}, "q2": {{DocNo: "x", Score: 0.5}}}, false},
		{"ties by id ascending", []runs.RankedDoc{doc("b", 2), doc("a", 1), doc("c", 1)},
			map[string][]trec.Result{"q1": {{DocNo: "b", Score: 3}, {DocNo: "a", Score: 2}, {DocNo: "c", Score: 1}}, "q2": {{DocNo: "x", Score: 1}}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &runs.Store{Dir: t.TempDir()}
			run, err := store.Create(runs.Manifest{}, time.Unix(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			queries := []runs.QueryResult{
				{QueryID: "q1", Top: tt.q1},
				{QueryID: "q2", Top: []runs.RankedDoc{doc("x", 0.5)}},
				{QueryID: "q3", Top: []runs.RankedDoc{doc("y", 1)}, Error: "timeout", OnError: "zero"},
				{QueryID: "q4", Top: []runs.RankedDoc{doc("z", 1)}, Unjudged: true},
			}
			if err := run.RecordTrial(runs.TrialRecord{Index: 0, Name: "t", Status: "ok"}, queries); err != nil {
				t.Fatal(err)
			}
			got, rankScores, err := dataset.TrialRun(run, 0, "tag")
			if err != nil {
				t.Fatal(err)
			}
			if rankScores != tt.rankScores || got.Tag != "tag" || !reflect.DeepEqual(got.Queries, tt.want) {
				t.Errorf("got %v (rank scores %v), want %v (%v)", got.Queries, rankScores, tt.want, tt.rankScores)
			}
		})
	}
}
