package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/replay"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// Export formats (tune export --format).
const (
	// ExportTREC writes topics.tsv (`id<TAB>text`) and qrels.txt (`qid 0
	// docno grade`).
	ExportTREC = "trec"
	// ExportBEIR writes a BEIR folder: queries.jsonl, qrels/test.tsv and,
	// when the dataset has a corpus, corpus.jsonl.
	ExportBEIR = "beir"
)

// Exported file names.
const (
	TopicsFile    = "topics.tsv"
	QrelsFile     = "qrels.txt"
	BEIRQueries   = "queries.jsonl"
	BEIRQrels     = "qrels/test.tsv"
	BEIRCorpus    = "corpus.jsonl"
	TrialRunFile  = "run.trec"
	exportFileMod = 0o644
)

// Export writes the dataset's queries and their judgments, resolved to
// document ids exactly as a sweep scores them (passage judgments become the
// documents they match), to dir in format, so that any evaluator can
// score against them. Every file is rendered before the first is written,
// each is written atomically, and the paths written are returned in order.
// Queries without judgments appear in the topics only.
func Export(ds *Dataset, format, dir string) ([]string, error) {
	files := map[string][]byte{}
	var order []string
	add := func(name string, data []byte) {
		files[name] = data
		order = append(order, name)
	}
	qrels := trec.Qrels{}
	for _, q := range ds.Queries {
		if len(q.Judgments) > 0 {
			qrels[q.ID] = q.Judgments
		}
	}
	switch format {
	case ExportTREC:
		topics, err := trecTopics(ds.Queries)
		if err != nil {
			return nil, err
		}
		add(TopicsFile, topics)
		var b bytes.Buffer
		if err := trec.WriteQrels(&b, qrels); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		add(QrelsFile, b.Bytes())
	case ExportBEIR:
		queries, err := beirQueries(ds.Queries)
		if err != nil {
			return nil, err
		}
		add(BEIRQueries, queries)
		b, err := beirQrels(qrels)
		if err != nil {
			return nil, err
		}
		add(BEIRQrels, b)
		if ds.Corpus != "" {
			corpus, err := beirCorpus(ds.Corpus)
			if err != nil {
				return nil, err
			}
			add(BEIRCorpus, corpus)
		}
	default:
		return nil, inputerr.Wrap(fmt.Errorf("export: --format: want %s or %s (got %q)", ExportTREC, ExportBEIR, format))
	}
	return writeAll(dir, order, files)
}

// trecTopics renders the queries as a TREC topics file: "ID<tab>TEXT" a
// line, the text's whitespace runs (line breaks included) made single
// spaces. An id holding whitespace could not be read back: an error.
func trecTopics(queries []scoring.Query) ([]byte, error) {
	var topics bytes.Buffer
	for _, q := range queries {
		if strings.ContainsAny(q.ID, " \t\r\n") {
			return nil, fmt.Errorf("export: query id %q contains whitespace", q.ID)
		}
		fmt.Fprintf(&topics, "%s\t%s\n", q.ID, strings.Join(strings.Fields(q.Text), " "))
	}
	return topics.Bytes(), nil
}

// beirQueries renders the queries as BEIR queries.jsonl lines {_id, text,
// metadata, category (when set)}, HTML characters unescaped.
func beirQueries(queries []scoring.Query) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, q := range queries {
		line := map[string]any{"_id": q.ID, "text": q.Text, "metadata": map[string]any{}}
		if q.Category != "" {
			line["category"] = q.Category
		}
		if err := enc.Encode(line); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
	}
	return b.Bytes(), nil
}

// beirQrels renders qrels as a BEIR qrels TSV with its header, sorted by
// query id then document id. An id holding a tab or a line break could not
// be read back: an error.
func beirQrels(qrels trec.Qrels) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("query-id\tcorpus-id\tscore\n")
	for _, qid := range slices.Sorted(maps.Keys(qrels)) {
		for _, doc := range slices.Sorted(maps.Keys(qrels[qid])) {
			if strings.ContainsAny(qid+doc, "\t\r\n") {
				return nil, fmt.Errorf("export: query %q, document %q: an id holds a tab or a line break", qid, doc)
			}
			fmt.Fprintf(&b, "%s\t%s\t%d\n", qid, doc, qrels[qid][doc])
		}
	}
	return b.Bytes(), nil
}

// beirCorpus renders the corpus at path as BEIR corpus.jsonl lines
// {_id, title, text}, as the engine reads it.
func beirCorpus(path string) ([]byte, error) {
	c, err := corpus.Load(corpus.Config{Path: path})
	if err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("dataset.corpus: %w", err))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, d := range c.Docs {
		if err := enc.Encode(struct {
			ID    string `json:"_id"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}{d.ID, d.Title, d.Text}); err != nil {
			return nil, fmt.Errorf("export corpus: %w", err)
		}
	}
	return b.Bytes(), nil
}

func writeAll(dir string, order []string, files map[string][]byte) ([]string, error) {
	paths := make([]string, 0, len(order))
	for _, name := range order {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return paths, fmt.Errorf("export: %w", err)
		}
		if err := atomicfile.Write(p, files[name], exportFileMod); err != nil {
			return paths, fmt.Errorf("export: %w", err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// TrialRun is a recorded trial's ranking as a TREC run, tagged tag: each
// query's recorded top results (TopRecorded of them, a document ranked
// twice, as passage mode may, at its first rank) in the order the sweep
// scored them; unjudged and failed queries are left out.
//
// The scores are the recorded ones when every query's list is in the tie
// rule's order (trec.CheckOrder: score descending, then document id
// descending), as the embedded engine and the replay rank, so the file is
// the one tune search writes for that config. Otherwise (a backend that
// serves ties or scores in another order, or a run recorded under an
// earlier tie rule) every score is rewritten as descending rank values (n,
// n-1, ..., 1) and rankScores is true: evaluators order by score, so that
// keeps the order the sweep scored.
func TrialRun(run *runs.Run, index int, tag string) (r trec.Run, rankScores bool, err error) {
	replay.Of(run)
	results, err := run.QueryResults(index)
	if err != nil {
		return trec.Run{}, false, err
	}
	r = trec.Run{Tag: tag, Queries: map[string][]trec.Result{}}
	for _, q := range results {
		if q.Error != "" || q.Unjudged || len(q.Top) == 0 {
			continue
		}
		out := make([]trec.Result, 0, len(q.Top))
		seen := make(map[string]bool, len(q.Top))
		for _, d := range q.Top {
			if !seen[d.DocID] {
				seen[d.DocID] = true
				out = append(out, trec.Result{DocNo: d.DocID, Score: d.Score})
			}
		}
		if trec.CheckOrder(q.QueryID, out) != nil {
			rankScores = true
		}
		r.Queries[q.QueryID] = out
	}
	if rankScores {
		for _, out := range r.Queries {
			for i := range out {
				out[i].Score = float64(len(out) - i)
			}
		}
	}
	return r, rankScores, nil
}

// TrialRunBytes is the run file (TrialRun, tag "fusiontune") of the trial
// ref names in store: "RUN" (its best trial) or "RUN:TRIAL". note is what
// to tell the user about it ("" for nothing); errors naming a run or
// trial that is not there are input errors (inputerr.Error).
func TrialRunBytes(store *runs.Store, ref string) (data []byte, note string, err error) {
	data, _, note, err = trialRunAndQueries(store, ref)
	return data, note, err
}

// trialRunAndQueries is TrialRunBytes with the ids of the judged queries
// the trial was scored on (a dev-split run's: the dev queries).
func trialRunAndQueries(store *runs.Store, ref string) (data []byte, queries map[string]bool, note string, err error) {
	rec, e, err := runs.ResolveTrial(store, ref)
	if err != nil {
		return nil, nil, "", err
	}
	results, err := rec.QueryResults(e.Index)
	if err != nil {
		return nil, nil, "", err
	}
	queries = map[string]bool{}
	for _, q := range results {
		if !q.Unjudged {
			queries[q.QueryID] = true
		}
	}
	r, rankScores, err := TrialRun(rec, e.Index, "fusiontune")
	if err != nil {
		return nil, nil, "", err
	}
	if rankScores {
		note = fmt.Sprintf("note: %s: the recorded ranking is not in score-then-id order (its backend orders ties or scores otherwise), so run.trec scores are rank values n..1 that keep the order the sweep scored", e.Name)
	}
	var b bytes.Buffer
	if err := trec.WriteRun(&b, r); err != nil {
		return nil, nil, "", err
	}
	return b.Bytes(), queries, note, nil
}
