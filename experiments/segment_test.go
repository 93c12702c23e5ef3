package experiments_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

func TestSegment(t *testing.T) {
	q := experiments.Query{Language: "hi", Category: "faq", Meta: map[string]any{"source": "logs", "n": 3.0}}
	tests := []struct {
		by, want string
		bad      bool
	}{
		{by: "language", want: "hi"},
		{by: "category", want: "faq"},
		{by: "difficulty", want: experiments.NoSegment},
		{by: "meta.source", want: "logs"},
		{by: "meta.n", want: "3"},
		{by: "meta.missing", want: experiments.NoSegment},
		{by: "meta.", bad: true},
		{by: "lang", bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.by, func(t *testing.T) {
			err := experiments.CheckSegmentation(tc.by)
			if tc.bad {
				if err == nil {
					t.Fatalf("CheckSegmentation(%q) = nil, want an error", tc.by)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := q.Segment(tc.by); got != tc.want {
				t.Errorf("Segment(%q) = %q, want %q", tc.by, got, tc.want)
			}
		})
	}
}

func TestFilter(t *testing.T) {
	gs := &experiments.GoldenSet{Queries: []experiments.Query{
		{ID: "a", Language: "en", Category: "faq"}, {ID: "b", Language: "hi", Category: "faq"}, {ID: "c", Language: "hi", Category: "howto"}}}
	tests := []struct {
		category, language, wantIDs, wantName string
	}{
		{wantIDs: "abc"},
		{language: "all", wantIDs: "abc"},
		{language: "hi", wantIDs: "bc", wantName: "language=hi"},
		{category: "faq", language: "hi", wantIDs: "b", wantName: "category=faq, language=hi"},
		{category: "none", wantIDs: "", wantName: "category=none"},
	}
	for _, tc := range tests {
		t.Run(tc.category+"/"+tc.language, func(t *testing.T) {
			got, name := gs.Filter(tc.category, tc.language)
			ids := ""
			for _, q := range got.Queries {
				ids += q.ID
			}
			if ids != tc.wantIDs || name != tc.wantName {
				t.Errorf("Filter(%q, %q) = %q, %q; want %q, %q", tc.category, tc.language, ids, name, tc.wantIDs, tc.wantName)
			}
			if len(gs.Queries) != 3 {
				t.Errorf("Filter changed the set")
			}
		})
	}
}

func TestLanguages(t *testing.T) {
	for _, c := range []struct {
		langs []string
		want  string
	}{{nil, ""}, {[]string{"", ""}, ""}, {[]string{"es", "en", "es", ""}, "en,es"}, {[]string{"hi"}, "hi"}} {
		var qs []experiments.Query
		for _, l := range c.langs {
			qs = append(qs, experiments.Query{Language: l})
		}
		if got := experiments.Languages(qs); got != c.want {
			t.Errorf("Languages(%q) = %q, want %q", c.langs, got, c.want)
		}
	}
}
