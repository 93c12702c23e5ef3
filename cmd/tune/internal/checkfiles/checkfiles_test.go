package checkfiles_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/checkfiles"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/settings"
)

// TestFor: auto detects experiment files, settings files and golden sets;
// a kind name forces one; an unknown name lists the kinds.
func TestFor(t *testing.T) {
	for _, tc := range []struct{ path, kind, want string }{
		{"../../../../experiments/round1.json", "auto", "experiments"},
		{"../../testdata/settings/demo.good.yaml", "auto", "settings"},
		{"../../../../experiments/testdata/golden/basic.good.json", "auto", "golden"},
		{"../../../../experiments/round1.json", "golden", "golden"},
	} {
		k, err := checkfiles.For(tc.path, tc.kind)
		if err != nil || k.Name != tc.want {
			t.Errorf("For(%s, %s) = %q, %v; want %q", tc.path, tc.kind, k.Name, err, tc.want)
		}
	}
	_, err := checkfiles.For("f", "x")
	if !errors.Is(err, checkfiles.ErrUnknownKind) || err.Error() != `unknown --kind "x" (expected auto or experiments, settings, golden)` {
		t.Errorf("unknown kind: %v", err)
	}
}

// TestCheckMissingDocs (from cmd/tune): a golden set judging documents
// its corpus lacks is refused, each id with a did-you-mean from the
// corpus, the corpus coming from Options.Corpus or from the settings;
// dataset.allow_missing_docs turns it into a warning with the right
// counts.
func TestCheckMissingDocs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	corpus := write("corpus.jsonl", `{"_id": "doc-12", "text": "boiler pressure"}`+"\n"+`{"_id": "doc-13", "text": "radiator"}`+"\n"+`{"_id": "faq", "text": "questions"}`+"\n")
	golden := write("golden.json", `{"queries": [
  {"id": "q1", "query": "pressure", "expected_passages": [{"doc_id": "doc_12", "relevance": 3}, {"doc_id": "faq", "relevance": 1}]},
  {"id": "q2", "query": "radiator", "expected_passages": [{"doc_id": "doc-13", "relevance": 3}]}
]}`)
	strict := write("strict.yaml", "dataset:\n  corpus: "+corpus+"\n")
	allow := write("allow.yaml", "dataset:\n  corpus: "+corpus+"\n  allow_missing_docs: true\n")
	missing := golden + ":2:59: doc_id: query \"q1\": document \"doc_12\" is not in the corpus (did you mean \"doc-12\" or \"doc-13\"?)\n" +
		golden + ": judged documents not in the corpus: 1 (1 distinct ids, in a corpus of 3 documents); fix the ids, or set dataset.allow_missing_docs: true to score with them anyway"
	for _, tc := range []struct {
		name, corpus, config string
		summary, warnings    string
		err                  string
	}{
		{"corpus", corpus, "", "", "", missing},
		{"the settings' corpus", "", strict, "", "", missing},
		{"allowed", "", allow, "2 queries, 3 judgments; 2 judged documents found in a corpus of 3\ngrades: 0-3 (relevant >= 1, strong >= 2, exact >= 3)\n" +
			"primary: default composite: mean of NDCG@20, NDCG@50, ERR@10, Strong_Precision@10, Strong_Precision@20, Useful_Precision@50, Avg_Grade@10/3, Gain_Recall@20",
			"judged documents not in the corpus: 1 (1 distinct ids: doc_12), kept since dataset.allow_missing_docs is true: they count as relevant but can never be retrieved; judged documents found: 2", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := checkfiles.For(golden, "auto")
			if err != nil {
				t.Fatal(err)
			}
			o := checkfiles.Options{Corpus: tc.corpus}
			if tc.config != "" {
				o.Settings = func() (*settings.Settings, error) { return checkfiles.ReadSettings(tc.config) }
			}
			summary, warnings, err := k.Check(golden, o)
			if summary != tc.summary || fmt.Sprint(err) != fmt.Sprint(errOrNil(tc.err)) || joined(warnings) != tc.warnings {
				t.Errorf("got %q, warnings %q, err %v\nwant %q, warnings %q, err %s", summary, joined(warnings), err, tc.summary, tc.warnings, tc.err)
			}
		})
	}
}

func joined(errs []error) string {
	var s []string
	for _, e := range errs {
		s = append(s, e.Error())
	}
	return strings.Join(s, "\n")
}

func errOrNil(s string) error {
	if s == "" {
		return nil
	}
	return errors.New(s)
}
