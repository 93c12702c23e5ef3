package runs_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fusiontune/fusiontune/runs"
)

// studyLeaderboard is the leaderboard of the shipped TPE study on the
// demo (testdata/study-replay.leaderboard.json, as make
// check-leaderboards records it): 24 sampled trials over five parameters.
func studyLeaderboard(t *testing.T) runs.Leaderboard {
	t.Helper()
	data, err := os.ReadFile("testdata/study-replay.leaderboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var lb runs.Leaderboard
	if err := json.Unmarshal(data, &lb); err != nil {
		t.Fatal(err)
	}
	return lb
}

// TestLeaderboardRenderFit: the text leaderboard of a sampled study fits
// 120 characters by default, every line, notes wrapped; its sampled
// trials show their parameters, rounded; --top keeps the best and the
// baseline; --columns sets another width and --wide none. Markdown shows
// the labels and the top rows but is not cut to a width.
func TestLeaderboardRenderFit(t *testing.T) {
	for _, tc := range []struct {
		name       string
		width, top int
		maxWidth   int // the widest line allowed, 0 none
	}{
		{"TestLeaderboardRenderFit", 0, 0, runs.DefaultWidth},
		{"TestLeaderboardRenderFitTop", 0, 5, runs.DefaultWidth},
		{"TestLeaderboardRenderFitColumns", 80, 3, 80},
		{"TestLeaderboardRenderFitWide", -1, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lb := studyLeaderboard(t)
			lb.Width, lb.Top = tc.width, tc.top
			checkGoldenFormats(t, tc.name, []string{"text", "md"}, lb.Render)
			var b bytes.Buffer
			if err := lb.Render(&b, "text"); err != nil {
				t.Fatal(err)
			}
			widest := 0
			for _, line := range strings.Split(b.String(), "\n") {
				widest = max(widest, utf8.RuneCountInString(line))
			}
			if tc.maxWidth > 0 && widest > tc.maxWidth || tc.maxWidth == 0 && widest <= runs.DefaultWidth {
				t.Errorf("widest line %d, want at most %d (0: over the default):\n%s", widest, tc.maxWidth, b.String())
			}
			text := b.String()
			if tc.width <= 0 && (!strings.Contains(text, "tpe-014 method=rrf,k=5,w=bm25:0.849/dense:0.517") || strings.Contains(text, "0.8485014492978581")) {
				t.Errorf("the best sampled trial without its rounded parameters:\n%s", text)
			}
			if tc.top > 0 && (strings.Count(text, "| tpe-") != tc.top || !strings.Contains(text, "| baseline") || !strings.Contains(text, "more trials: --top 0 shows all")) {
				t.Errorf("top %d: want %d sampled rows, the baseline and a note:\n%s", tc.top, tc.top, text)
			}
		})
	}
}

// TestLeaderboardRenderFitKeepsData: CSV and JSON carry every trial and
// column whatever the text table's width and top.
func TestLeaderboardRenderFitKeepsData(t *testing.T) {
	lb := studyLeaderboard(t)
	render := func(lb runs.Leaderboard, f string) string {
		var b bytes.Buffer
		if err := lb.Render(&b, f); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	cut := lb
	cut.Width, cut.Top = 60, 2
	for _, f := range []string{"csv", "json"} {
		if render(lb, f) != render(cut, f) {
			t.Errorf("%s changes with the text table's width and top", f)
		}
	}
	data, err := os.ReadFile("testdata/study-replay.leaderboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := io.WriteString(&b, render(lb, "json")); err != nil || b.String() != string(data) {
		t.Errorf("the JSON does not read back byte-identical")
	}
}
