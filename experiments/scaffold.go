package experiments

import (
	"bytes"
	_ "embed" // the templates
	"encoding/json"
	"fmt"
	"strings"
	"text/template"
	"unicode/utf8"
)

// The files `tune init` writes (see Scaffold).
const (
	InitSettingsFile   = "tune.yaml"
	InitExperimentFile = "experiment.yaml"
	InitGoldenFile     = "golden.yaml"
)

// InitQueries is how many skeleton queries Scaffold writes.
const InitQueries = 3

var (
	//go:embed scaffold/tune.yaml.tmpl
	settingsTemplate string
	//go:embed scaffold/experiment.yaml
	initExperiment []byte
)

// File is one file to write: its name and bytes.
type File struct {
	Name string
	Data []byte
}

// Project is what `tune init` writes a starter project about
// (Scaffold).
type Project struct {
	// Corpus is the corpus as tune.yaml names it ("" for a placeholder);
	// Docs are its documents, which a skeleton golden set judges.
	Corpus string
	Docs   []Document
	// Dataset, when set, is the user's golden set: tune.yaml points at it
	// and no skeleton is written.
	Dataset *ProjectDataset
}

// ProjectDataset is a golden set tune.yaml points at: its paths as
// tune.yaml names them, and what it held when tune init read it, for
// tune.yaml's comments.
type ProjectDataset struct {
	// Kind says what it is ("a BEIR folder"); Path, Judgments (TREC
	// topics' qrels, or "") and QrelsSplit (a BEIR split other than
	// DefaultBEIRSplit, or "") are written as settings.
	Kind, Path, Judgments, QrelsSplit string
	NumQueries, NumJudgments          int
	// Scale is its grade scale (Scale.String) and Primary what the default
	// primary score is on it (the scorer's description): written as
	// comments, since both follow the judgments when they change.
	Scale, Primary string
}

// Scaffold returns the starter files of `tune init`, in order: a commented
// tune.yaml (every settings section with its defaults and ranges, paths
// relative to its directory, lsa-256 vectors), an experiment file (the
// baseline, each retriever alone under ReferenceName, and a grid over RRF
// k and the retriever weights) and, without p.Dataset, a golden-set
// skeleton: it judges InitQueries of p.Docs, spread over the corpus,
// under queries whose text is a Placeholder to write (without docs the
// judged ids are placeholders too). A golden set holding a placeholder
// fails `tune check` (and every sweep), naming each one.
func Scaffold(p Project) ([]File, error) {
	var settings bytes.Buffer
	t := template.Must(template.New(InitSettingsFile).Parse(settingsTemplate))
	data := struct {
		Golden, Corpus string
		HasCorpus      bool
		Dataset        *ProjectDataset
	}{InitGoldenFile, yamlScalar(p.Corpus), p.Corpus != "", nil}
	if p.Corpus == "" {
		data.Corpus = "corpus.jsonl"
	}
	if d := p.Dataset; d != nil {
		q := *d
		q.Path, q.Judgments, q.QrelsSplit = yamlScalar(d.Path), yamlOptional(d.Judgments), yamlOptional(d.QrelsSplit)
		data.Dataset = &q
	}
	if err := t.Execute(&settings, data); err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	files := []File{
		{InitSettingsFile, settings.Bytes()},
		{InitExperimentFile, initExperiment},
	}
	if p.Dataset == nil {
		files = append(files, File{InitGoldenFile, goldenSkeleton(p.Docs)})
	}
	return files, nil
}

// yamlOptional is yamlScalar(s), "" for "".
func yamlOptional(s string) string {
	if s == "" {
		return ""
	}
	return yamlScalar(s)
}

// yamlScalar quotes s as a YAML string (JSON strings are YAML).
func yamlScalar(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// goldenSkeleton writes the native YAML golden set: InitQueries queries
// judging documents spread over docs, their texts placeholders.
func goldenSkeleton(docs []Document) []byte {
	var b strings.Builder
	b.WriteString(`# golden.yaml, written by tune init: the queries your users ask and the
# documents that answer them. Replace every "` + Placeholder + `" value (tune check
# lists each one), then add queries: a few dozen, over the categories below,
# make a useful first sweep. relevance: 0 irrelevant, 1 weak, 2 partial,
# 3 answers it fully; doc_id names a corpus document (or use
# passage_substring: a verbatim excerpt, which survives re-chunking).
categories: [direct, paraphrase]
queries:
`)
	cats := []string{"direct", "paraphrase"}
	n := InitQueries
	if len(docs) > 0 {
		n = min(n, len(docs))
	}
	for i := 0; i < n; i++ {
		text := Placeholder + " a question your users ask"
		id := Placeholder + " the id of a document that answers it"
		if len(docs) > 0 {
			d := docs[i*len(docs)/n]
			text = fmt.Sprintf("%s a question document %s answers (it begins %q)", Placeholder, d.ID, excerpt(d.Text, 60))
			id = d.ID
		}
		fmt.Fprintf(&b, "  - id: q%d\n    query: %s\n    category: %s\n    expected_passages:\n      - {doc_id: %s, relevance: 3}\n",
			i+1, yamlScalar(text), cats[i%len(cats)], yamlScalar(id))
	}
	return []byte(b.String())
}

// excerpt is the first n characters of s's words, with "..." when cut.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n])) + "..."
}
