package runs_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// TestLeaderboardQueryErrors: a trial whose failed queries were scored
// under eval.on_query_error keeps the count and policy in its entry, and
// the leaderboard says so in a footnote in every format; trials without
// failed queries add nothing.
func TestLeaderboardQueryErrors(t *testing.T) {
	trials := []runs.TrialRecord{
		{Index: 0, Name: "baseline", Baseline: true, Status: runs.StatusOK, Primary: 0.5, Summary: runs.Summary{Queries: 8}},
		{Index: 1, Name: "zeroed", Status: runs.StatusOK, Primary: 0.4, Summary: runs.Summary{Queries: 8, Failed: 2, OnQueryError: "zero"}},
		{Index: 2, Name: "skipped", Status: runs.StatusOK, Primary: 0.6, Summary: runs.Summary{Queries: 7, Failed: 1, OnQueryError: "skip"}},
	}
	lb := runs.NewLeaderboard("NDCG@10", nil, trials)
	want := []string{
		"trial skipped: 1 queries failed after retries and were left out of its scores and paired tests (eval.on_query_error: skip)",
		"trial zeroed: 2 queries failed after retries and were scored 0 (eval.on_query_error: zero)",
	}
	if got := strings.Join(lb.Warnings, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	data, err := json.Marshal(lb)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"failed_queries":2,"on_query_error":"zero"`)) {
		t.Errorf("entry lacks the count and policy: %s", data)
	}
	for _, format := range []string{"text", "md"} {
		var b bytes.Buffer
		if err := lb.Render(&b, format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want[1]) {
			t.Errorf("%s leaderboard lacks the footnote:\n%s", format, b.String())
		}
	}
	if clean := runs.NewLeaderboard("NDCG@10", nil, trials[:1]); len(clean.Warnings) != 0 {
		t.Errorf("warnings without failed queries: %v", clean.Warnings)
	}
}
