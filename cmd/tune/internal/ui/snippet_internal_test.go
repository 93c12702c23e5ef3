package ui

import (
	"strings"
	"testing"
)

// TestSnippet: a short text is shown whole; a long one around its first
// query term, cut at spaces, "…" where text was left out; without a term
// from the start.
func TestSnippet(t *testing.T) {
	long := strings.Repeat("alpha beta gamma ", 20) + "the boiler pressure drops " + strings.Repeat("delta epsilon ", 20)
	for _, tc := range []struct {
		name, text, query, want string
		n                       int
	}{
		{"short", "Top up the  boiler\npressure.", "boiler", "Top up the boiler pressure.", 100},
		{"around-term", long, "pressure", "…beta gamma the boiler pressure drops delta epsilon delta epsilon…", 70},
		{"no-term", long, "radiator", "alpha beta gamma alpha beta gamma alpha beta gamma alpha…", 60},
		{"utf8", strings.Repeat("é", 50) + " boiler " + strings.Repeat("ü", 50), "boiler", "…éééééééééééé boiler üüüüüüüüüüüüüüüüüüüüüüü…", 80},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := snippet(tc.text, queryTerms(tc.query), tc.n); got != tc.want {
				t.Errorf("snippet = %q\nwant      %q", got, tc.want)
			}
		})
	}
}
