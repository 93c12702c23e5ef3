package dataset

import (
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// TestExportRenderers: each export file renders its queries or qrels as the
// format's readers expect, and an id the format could not carry is an
// error naming it.
func TestExportRenderers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		render  func() ([]byte, error)
		want    string
		wantErr string
	}{
		{"topics: whitespace runs become one space", func() ([]byte, error) {
			return trecTopics([]scoring.Query{{ID: "q1", Text: "hybrid\tsearch\n  fusion"}, {ID: "q2", Text: "k"}})
		}, "q1\thybrid search fusion\nq2\tk\n", ""},
		{"topics: an id with a space", func() ([]byte, error) {
			return trecTopics([]scoring.Query{{ID: "q 1", Text: "x"}})
		}, "", `query id "q 1" contains whitespace`},
		{"beir queries: category when set, html kept", func() ([]byte, error) {
			return beirQueries([]scoring.Query{{ID: "q1", Text: "a<b & c", Category: "nav"}, {ID: "q2", Text: "d"}})
		}, `{"_id":"q1","category":"nav","metadata":{},"text":"a<b & c"}` + "\n" +
			`{"_id":"q2","metadata":{},"text":"d"}` + "\n", ""},
		{"beir qrels: header, sorted by query then document", func() ([]byte, error) {
			return beirQrels(trec.Qrels{"q2": {"d9": 1}, "q1": {"d3": 2, "d10": 0}})
		}, "query-id\tcorpus-id\tscore\nq1\td10\t0\nq1\td3\t2\nq2\td9\t1\n", ""},
		{"beir qrels: a document id with a tab", func() ([]byte, error) {
			return beirQrels(trec.Qrels{"q1": {"d\t1": 1}})
		}, "", `query "q1", document "d\t1": an id holds a tab or a line break`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.render()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
