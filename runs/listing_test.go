package runs_test

import (
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// TestWriteList: tune runs' lines in every format; a missing value is a
// dash in text and Markdown, empty in CSV, left out in JSON.
func TestWriteList(t *testing.T) {
	best := 0.51234
	rows := []runs.ListRow{
		{Run: "20261124-a", Status: "done", Trials: 3, Experiment: "shortlist", Gates: "pass", Best: &best, Measure: "NDCG@10", BestTrial: "rrf k=60"},
		{Run: "20261124-b", Status: "running", Trials: 1},
	}
	for _, tc := range []struct{ format, want string }{
		{"text", "RUN         STATUS   TRIALS  EXPERIMENT  GATES  BEST    MEASURE  BEST TRIAL\n" +
			"20261124-a  done     3       shortlist   pass   0.5123  NDCG@10  rrf k=60\n" +
			"20261124-b  running  1       —           —      —       —        —\n"},
		{"md", "| RUN | STATUS | TRIALS | EXPERIMENT | GATES | BEST | MEASURE | BEST TRIAL |\n"},
		{"csv", "run,status,trials,experiment,gates,best,measure,best_trial\n20261124-a,done,3,shortlist,pass,0.5123,NDCG@10,rrf k=60\n20261124-b,running,1,,,,,\n"},
		{"json", "[\n  {\n    \"run\": \"20261124-a\",\n    \"status\": \"done\",\n    \"trials\": 3,\n    \"experiment\": \"shortlist\",\n    \"gates\": \"pass\",\n    \"best\": 0.51234,\n    \"measure\": \"NDCG@10\",\n    \"best_trial\": \"rrf k=60\"\n  },\n  {\n    \"run\": \"20261124-b\",\n    \"status\": \"running\",\n    \"trials\": 1\n  }\n]\n"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			var b strings.Builder
			if err := runs.WriteList(&b, tc.format, rows); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); !strings.HasPrefix(got, tc.want) {
				t.Errorf("got\n%s\nwant (prefix)\n%s", got, tc.want)
			}
		})
	}
	if err := runs.WriteList(&strings.Builder{}, "xml", rows); err == nil {
		t.Error("format xml: no error")
	}
}
