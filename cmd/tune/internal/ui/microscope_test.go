package ui_test

import (
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/ui"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
)

var (
	firstFusedRE = regexp.MustCompile(`<table id="fused">.*?data-doc="([^"]+)"><td class="num">1</td><td>[^<]+<div class="snip"><b>.`)
	optionRE     = regexp.MustCompile(`<option value="([^"]+)"`)
	snipMarkRE   = regexp.MustCompile(`<div class="snip">[^\n]*?<mark>`)
	// a retriever table's first row: rank 1, the document id, its title
	retrieverTitleRE = regexp.MustCompile(`data-retriever="[^"]+">.*\n<tr class="[^"]*"><td class="num">1</td><td>[^<]+<div class="snip short"><b>.`)
)

// TestMicroscopeDocsFindTyped runs the microscope live on the demo (a real
// engine on loopback): every list shows its documents' titles and
// snippets with query terms marked; the query box filters the golden set's
// queries by id or words; a typed query not in the golden set is run and
// the page says it has no grades, while typing a golden query's text runs
// that query with its grades.
func TestMicroscopeDocsFindTyped(t *testing.T) {
	dir := t.TempDir()
	store, err := runs.Open(filepath.Join(dir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	run := recordRun(t, store, 2)
	ds, err := dataset.Open(experiments.DatasetConfig{}, "", dir) // the demo
	if err != nil {
		t.Fatal(err)
	}
	docsMap, err := ds.JudgeDocs()
	if err != nil {
		t.Fatal(err)
	}
	docs := ui.DocsOf(docsMap)
	scorer, err := scoring.NewScorer("default", nil, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, ui.Options{Store: store, Dataset: ds, Docs: docs, Scorer: scorer,
		Backend: newEngineFactory(t, ds.Corpus), BackendDir: filepath.Join(dir, "backend")})
	matching := func(words ...string) (ids []string) {
		for _, q := range ds.Queries {
			hay := strings.ToLower(q.ID + " " + q.Text)
			all := true
			for _, w := range words {
				all = all && strings.Contains(hay, w)
			}
			if all {
				ids = append(ids, q.ID)
			}
		}
		return ids
	}
	typed := "radiator cold at the top upstairs"
	if len(matching(strings.Fields(typed)...)) != 0 {
		t.Fatalf("%q is a golden query's text", typed)
	}
	base := "/microscope?run=" + run.ID() + "&trial=k%3D1"
	for _, tc := range []struct {
		name, query   string
		want, notWant []string
		options       []string // the query list, nil: every query
	}{
		{name: "golden", query: "&q=" + ds.Queries[0].ID, want: []string{`id="labelseq"`, `<b>` + ds.Queries[0].ID + `</b>`, "Missed judged-relevant"}, notWant: []string{`id="typednote"`}},
		{name: "find-words", query: "&find=Boiler+PRESSURE", want: []string{`id="matches"`}, options: matching("boiler", "pressure")},
		{name: "find-id", query: "&find=" + ds.Queries[1].ID, want: []string{"1 of"}, options: []string{ds.Queries[1].ID}},
		{name: "find-none", query: "&find=zzzzqq", want: []string{"0 of", "clear the box"}, options: []string{}},
		{name: "typed", query: "&text=" + url.QueryEscape(typed), want: []string{`id="typednote"`, "not in the golden set", "<b>typed query</b>"},
			notWant: []string{`id="labelseq"`, "Missed judged-relevant", "label them"}},
		{name: "typed-golden-text", query: "&text=" + url.QueryEscape(strings.ToUpper(ds.Queries[1].Text)), want: []string{`id="labelseq"`, `<b>` + ds.Queries[1].ID + `</b>`}, notWant: []string{`id="typednote"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := get(t, s, base+tc.query)
			if code != 200 {
				t.Fatalf("status %d:\n%s", code, body)
			}
			if strings.Contains(body, `id="error"`) && !strings.HasPrefix(tc.name, "find-none") {
				t.Fatalf("error on the page:\n%s", body)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(body, w) {
					t.Errorf("page has %q", w)
				}
			}
			if tc.options != nil {
				var got []string
				for _, m := range optionRE.FindAllStringSubmatch(body, -1) {
					got = append(got, m[1])
				}
				if strings.Join(got, " ") != strings.Join(tc.options, " ") {
					t.Errorf("query list %v, want %v", got, tc.options)
				}
			}
			if tc.name == "find-none" {
				return
			}
			if firstFusedRE.FindStringSubmatch(strings.ReplaceAll(body, "\n", " ")) == nil {
				t.Errorf("the fused list's first hit has no title and snippet:\n%s", body)
			}
			if n := len(snipMarkRE.FindAllString(body, -1)); n < 3 {
				t.Errorf("%d snippets with a query term marked in the fused list, want more", n)
			}
			if lists := retrieverTitleRE.FindAllString(body, -1); len(lists) != 2 {
				t.Errorf("%d retriever lists whose first row shows the document's title and snippet, want bm25's and dense's", len(lists))
			}
		})
	} // A refused control answers 400 and keeps the page: the controls, the
	// lists under the trial's own settings, and the refusal.
	code, body := get(t, s, base+"&q="+ds.Queries[0].ID+"&k=-5")
	if code != http.StatusBadRequest {
		t.Errorf("k -5: status %d, want 400", code)
	}
	for _, w := range []string{`id="error"`, "fusion controls", "showing the trial&#39;s own settings", `id="rrfk"`, `id="fused"`, `id="labelseq"`} {
		if !strings.Contains(body, w) {
			t.Errorf("k -5: page lacks %q", w)
		}
	}
	if code, _ := get(t, s, "/microscope?run=nope"); code != http.StatusNotFound {
		t.Errorf("an unknown run: status %d, want 404", code)
	}
}
