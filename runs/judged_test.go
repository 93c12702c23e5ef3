package runs_test

import (
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

func TestUnjudgedWarning(t *testing.T) {
	entry := func(name string, ndcg, judged float64, jo ...float64) runs.Entry {
		e := runs.Entry{Name: name, Status: runs.StatusOK}
		e.Scorecard = map[string]float64{"NDCG@10": ndcg, "Judged@10": judged}
		if len(jo) > 0 {
			e.JudgedOnly = map[string]float64{"NDCG@10": jo[0]}
		}
		return e
	}
	tests := []struct {
		name   string
		trials []runs.Entry
		want   string // substring; "" for no warning
	}{
		{"score gap larger than coverage gap", []runs.Entry{entry("a", 0.60, 0.50, 0.7), entry("b", 0.50, 0.45, 0.6)}, ""},
		{"coverage gap larger", []runs.Entry{entry("a", 0.60, 0.50), entry("b", 0.58, 0.40)},
			"the top two trials a and b differ mainly in unjudged documents: their NDCG@10 gap 0.0200 is smaller than their Judged@10 gap 0.1000"},
		{"judged-only order reversed", []runs.Entry{entry("a", 0.60, 0.50, 0.70), entry("b", 0.50, 0.45, 0.75)},
			"judged-only NDCG@10 orders them the other way (0.7000 vs 0.7500)"},
		{"equal judged-only is no reversal", []runs.Entry{entry("a", 0.60, 0.50, 0.70), entry("b", 0.50, 0.45, 0.70)}, ""},
		{"a trial with the same results and a failed one are skipped",
			[]runs.Entry{entry("a", 0.60, 0.50), {Name: "a2", Status: runs.StatusOK, SameAs: "a"}, {Name: "f", Status: runs.StatusFailed}, entry("b", 0.59, 0.30)},
			"trials a and b differ"},
		{"a coverage gap below WarnCoverageGap is noise", []runs.Entry{entry("a", 0.60, 0.50), entry("b", 0.60, 0.495)}, ""},
		{"one trial", []runs.Entry{entry("a", 0.60, 0.50)}, ""},
		{"no Judged@10 in the scorecard", []runs.Entry{{Name: "a", Status: runs.StatusOK, Summary: runs.Summary{Scorecard: map[string]float64{"NDCG@10": 0.5}}},
			{Name: "b", Status: runs.StatusOK, Summary: runs.Summary{Scorecard: map[string]float64{"NDCG@10": 0.4}}}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := runs.Leaderboard{Trials: tc.trials}.UnjudgedWarning()
			if tc.want == "" {
				if got != "" {
					t.Errorf("got warning %q, want none", got)
				}
				return
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

func TestJudgedOnlyColumns(t *testing.T) {
	lb := runs.Leaderboard{Primary: "NDCG@10", Metrics: []string{"NDCG@10", "Judged@10"}}
	e := runs.Entry{Rank: 1, Name: "a", Status: runs.StatusOK, Primary: 0.5}
	e.Scorecard = map[string]float64{"NDCG@10": 0.5, "Judged@10": 0.4}
	lb.Trials = []runs.Entry{e}
	lb.SetJudgedOnly(map[string]map[string]float64{"a": {"NDCG@10": 0.8}})
	for _, format := range []string{"text", "md", "csv"} {
		var plain, shown strings.Builder
		if err := lb.Render(&plain, format); err != nil {
			t.Fatal(err)
		}
		on := lb
		on.ShowJudgedOnly = true
		if err := on.Render(&shown, format); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(plain.String(), "NDCG@10_J") {
			t.Errorf("%s: judged-only column shown without ShowJudgedOnly:\n%s", format, plain.String())
		}
		if !strings.Contains(shown.String(), "NDCG@10_J") || !strings.Contains(shown.String(), "0.8") {
			t.Errorf("%s: no judged-only column with ShowJudgedOnly:\n%s", format, shown.String())
		}
	}
	var js strings.Builder
	if err := lb.Render(&js, "json"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"judged_only": {`) {
		t.Errorf("json has no judged_only:\n%s", js.String())
	}
}
