package treceval_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/metrics/treceval"
)

func TestStreamMatchesEvaluate(t *testing.T) {
	qrels := trec.Qrels{"a": {"d1": 1, "d2": 0}, "b": {"d3": 2}, "c": {"d9": 1}}
	run := trec.Run{Tag: "x", Queries: map[string][]trec.Result{
		"b": {{DocNo: "d3", Score: 1}, {DocNo: "d4", Score: 2}},
		"a": {{DocNo: "d2", Score: 5}, {DocNo: "d1", Score: 4}},
		"z": {{DocNo: "d1", Score: 1}}, // not judged: skipped
	}}
	sel, err := treceval.Select([]string{"all_trec"})
	if err != nil {
		t.Fatal(err)
	}
	for _, complete := range []bool{false, true} {
		o := treceval.DefaultOptions()
		o.Complete = complete
		want, err := treceval.Evaluate(qrels.Judgments(), run, sel, o)
		if err != nil {
			t.Fatal(err)
		}
		st, err := treceval.NewStream(qrels.Judgments(), sel, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"z", "b", "a"} { // file order, not sorted
			if err := st.Add(id, run.Queries[id]); err != nil {
				t.Fatal(err)
			}
		}
		got, err := st.Result("x")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Queries, want.Queries) || !reflect.DeepEqual(got.All, want.All) ||
			!reflect.DeepEqual(got.Skipped, []string{"z"}) {
			t.Errorf("complete=%v: stream and Evaluate differ:\n%+v\n%+v", complete, got, want)
		}
		if n := len(got.Queries); (complete && n != 3) || (!complete && n != 2) {
			t.Errorf("complete=%v: %d queries evaluated", complete, n)
		}
	}
}

func TestStreamNotGrouped(t *testing.T) {
	st, err := treceval.NewStream(trec.Qrels{"a": {"d": 1}}.Judgments(), treceval.Selection{}, treceval.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Add("a", nil); err != nil {
		t.Fatal(err)
	}
	if err := st.Add("a", nil); !errors.Is(err, treceval.ErrNotGrouped) {
		t.Fatalf("second Add: %v, want ErrNotGrouped", err)
	}
}

func TestStreamDuplicateDocument(t *testing.T) {
	st, err := treceval.NewStream(trec.Qrels{"a": {"d": 1}, "b": {"d": 1}}.Judgments(), treceval.Selection{}, treceval.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	dup := []trec.Result{{DocNo: "d", Score: 1}, {DocNo: "d", Score: 0}}
	for _, id := range []string{"b", "a"} {
		if err := st.Add(id, dup); err != nil {
			t.Fatal(err)
		}
	}
	// Both fail; the first in query id order is reported.
	if _, err := st.Result(""); err == nil || err.Error() != `query "a": document "d" retrieved twice` {
		t.Fatalf("error = %v", err)
	}
}
