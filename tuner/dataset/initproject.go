package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// InitOptions say what `tune init` starts a project from.
type InitOptions struct {
	// Dataset is the user's golden set — a BEIR folder, TREC topics (with
	// Judgments, their qrels) or a native file — that tune.yaml points at
	// ("": a skeleton golden set is written). QrelsSplit is a BEIR
	// folder's split ("": test, or the folder's only one).
	Dataset, Judgments, QrelsSplit string
	// Corpus is the corpus: a file, or a folder (a BEIR folder stands for
	// its corpus.jsonl). "": a BEIR dataset's own, else a placeholder.
	Corpus string
}

// Initialized is what InitProject wrote.
type Initialized struct {
	// Paths are the files written, in order.
	Paths []string
	// Corpus is the corpus as tune.yaml names it ("": a placeholder) and
	// Docs its number of documents (0 when none was read).
	Corpus string
	Docs   int
	// Dataset is the golden set tune.yaml points at (nil: the skeleton).
	Dataset *experiments.ProjectDataset
	// Warnings are the golden set's and its resolution's.
	Warnings []string
}

// InitProject writes a starter project into dir (created when missing):
// experiments.Scaffold's files. With o.Dataset, tune.yaml points at the
// user's golden set, read first — it must load and resolve against its
// corpus as a sweep would — with its grade scale and default primary as
// comments, and no skeleton is written; else the skeleton golden set
// judges documents of o.Corpus when there is one. It never overwrites a
// file: when one exists, nothing is written. Paths in tune.yaml are
// relative to dir (absolute ones as given). Errors the user can fix are input errors
// (inputerr.Error); on a failed write, the files written so far are
// listed.
func InitProject(dir string, o InitOptions) (*Initialized, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("--dir: %w", err))
	}
	in := &Initialized{}
	corpus, err := initCorpus(o)
	if err != nil {
		return nil, err
	}
	p := experiments.Project{}
	if o.Dataset != "" {
		if p.Dataset, err = initDataset(o, corpus, in); err != nil {
			return nil, err
		}
		if p.Dataset.Path, err = relativeTo(absDir, o.Dataset); err != nil {
			return nil, err
		}
		if o.Judgments != "" {
			if p.Dataset.Judgments, err = relativeTo(absDir, o.Judgments); err != nil {
				return nil, err
			}
		}
	} else if corpus != "" {
		if p.Docs, err = CorpusDocuments(corpus); err != nil {
			return nil, inputerr.Wrap(fmt.Errorf("--corpus: %w", err))
		}
		in.Docs = len(p.Docs)
	}
	if corpus != "" {
		if p.Corpus, err = relativeTo(absDir, corpus); err != nil {
			return nil, err
		}
	}
	in.Corpus, in.Dataset = p.Corpus, p.Dataset
	files, err := experiments.Scaffold(p)
	if err != nil {
		return nil, err
	}
	var exist []string
	for _, f := range files {
		p := filepath.Join(dir, f.Name)
		if _, err := os.Lstat(p); err == nil {
			exist = append(exist, p)
		}
	}
	if len(exist) > 0 {
		return nil, inputerr.Wrap(fmt.Errorf("init: not overwriting %s: nothing written (move the file(s) away or choose another --dir)", strings.Join(exist, ", ")))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("--dir: %w", err))
	}
	for _, f := range files {
		p := filepath.Join(dir, f.Name)
		if err := writeNew(p, f.Data); err != nil {
			return in, err
		}
		in.Paths = append(in.Paths, p)
	}
	return in, nil
}

// initCorpus is the corpus file o names: o.Corpus (a folder holding
// corpus.jsonl is a BEIR folder, read as that file; another folder is a
// folder of documents), else a BEIR dataset's corpus.jsonl, else "".
func initCorpus(o InitOptions) (string, error) {
	if o.Corpus == "" {
		if fi, err := os.Stat(o.Dataset); o.Dataset != "" && err == nil && fi.IsDir() {
			return experiments.BEIRCorpusPath(o.Dataset), nil
		}
		return "", nil
	}
	fi, err := os.Stat(o.Corpus)
	if err != nil {
		return "", inputerr.Wrap(fmt.Errorf("--corpus: %w", err))
	}
	if fi.IsDir() {
		if beir := experiments.BEIRCorpusPath(o.Corpus); fileExists(beir) {
			return beir, nil
		}
	}
	return o.Corpus, nil
}

// initDataset reads the golden set o names as a sweep would (its qrels
// split chosen by beirSplit), resolved against corpus when there is one,
// and describes it for tune.yaml (paths left for the caller). Its
// warnings join in.
func initDataset(o InitOptions, corpus string, in *Initialized) (*experiments.ProjectDataset, error) {
	fi, err := os.Stat(o.Dataset)
	if err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("--dataset: %w", err))
	}
	d := &experiments.ProjectDataset{Kind: "a golden set"}
	lo := experiments.LoadOptions{Judgments: o.Judgments}
	switch ext := strings.ToLower(filepath.Ext(o.Dataset)); {
	case fi.IsDir():
		d.Kind = "a BEIR folder"
		if o.Judgments != "" {
			return nil, inputerr.Wrap(fmt.Errorf("--judgments: a BEIR folder carries its qrels (qrels/<split>.tsv): choose one with --qrels-split"))
		}
		if lo.Split, err = beirSplit(o.Dataset, o.QrelsSplit); err != nil {
			return nil, err
		}
		if lo.Split != experiments.DefaultBEIRSplit {
			d.QrelsSplit = lo.Split
		}
	case ext == ".json" || ext == ".yaml" || ext == ".yml":
	default:
		d.Kind = "TREC topics and their qrels"
		if o.Judgments == "" {
			return nil, inputerr.Wrap(fmt.Errorf("--dataset %s: TREC topics need their judgments: give the qrels file with --judgments", o.Dataset))
		}
	}
	if o.QrelsSplit != "" && !fi.IsDir() {
		return nil, inputerr.Wrap(fmt.Errorf("--qrels-split: only for a BEIR folder (%s is a file)", o.Dataset))
	}
	gs, err := experiments.LoadGoldenSet(o.Dataset, lo)
	if err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("--dataset: %w", err))
	}
	for _, w := range gs.Warnings {
		in.Warnings = append(in.Warnings, w.Error())
	}
	if corpus != "" {
		if in.Docs, err = resolveInit(gs, corpus, fi.IsDir(), in); err != nil {
			return nil, err
		}
	}
	sc, err := scoring.NewScorer("default", nil, scoring.ScaleOptions(gs.Scale))
	if err != nil {
		return nil, err
	}
	d.NumQueries, d.NumJudgments = len(gs.Queries), gs.NumJudgments()
	d.Scale, d.Primary = gs.Scale.String(), sc.Describe()
	return d, nil
}

// resolveInit resolves gs's judgments against the corpus at path (its
// ids only when byID: a BEIR folder's qrels), as a sweep does: a judgment
// matching nothing, or a judged document the corpus lacks, is an error.
// It returns the corpus's size; the resolution's warnings join in.
func resolveInit(gs *experiments.GoldenSet, path string, byID bool, in *Initialized) (int, error) {
	read := CorpusDocuments
	if byID {
		read = func(path string) ([]experiments.Document, error) { return corpusIDs(path, "") }
	}
	docs, err := read(path)
	if err != nil {
		return 0, inputerr.Wrap(fmt.Errorf("--corpus: %w", err))
	}
	r, err := gs.Resolve(docs)
	if err != nil {
		return 0, inputerr.Wrap(fmt.Errorf("--dataset: %w", err))
	}
	for _, w := range r.Warnings {
		in.Warnings = append(in.Warnings, w.Error())
	}
	if _, err := r.CheckMissing(docs, false); err != nil {
		return 0, inputerr.Wrap(fmt.Errorf("--dataset: %w", err))
	}
	return len(docs), nil
}

// beirSplit is the qrels split of the BEIR folder dir a project reads:
// split when given (qrels/<split>.tsv must exist), else
// experiments.DefaultBEIRSplit when the folder has it, else its only
// split; several others and no test is an error listing them.
func beirSplit(dir, split string) (string, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "qrels", "*.tsv"))
	var splits []string
	for _, f := range files {
		splits = append(splits, strings.TrimSuffix(filepath.Base(f), ".tsv"))
	}
	slices.Sort(splits)
	have := func(s string) bool { return slices.Contains(splits, s) }
	switch {
	case split != "" && have(split):
		return split, nil
	case split != "":
		return "", inputerr.Wrap(fmt.Errorf("--qrels-split %q: %s has no qrels/%s.tsv (it has: %s)", split, dir, split, listOrNone(splits)))
	case have(experiments.DefaultBEIRSplit):
		return experiments.DefaultBEIRSplit, nil
	case len(splits) == 1:
		return splits[0], nil
	case len(splits) == 0:
		return "", inputerr.Wrap(fmt.Errorf("--dataset %s: a BEIR folder needs qrels/<split>.tsv (found none)", dir))
	}
	return "", inputerr.Wrap(fmt.Errorf("--dataset %s: no qrels/%s.tsv, and several other splits (%s): choose one with --qrels-split", dir, experiments.DefaultBEIRSplit, strings.Join(splits, ", ")))
}

// listOrNone is the items joined by ", ", or "none".
func listOrNone(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}

// relativeTo is path as a file in dir (absolute) names it, with forward
// slashes: relative to dir, or absolute when the user gave it so (or it
// cannot be made relative).
func relativeTo(dir, path string) (string, error) {
	if filepath.IsAbs(path) {
		return filepath.ToSlash(filepath.Clean(path)), nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", inputerr.Wrap(fmt.Errorf("%s: %w", path, err))
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		rel = abs
	}
	return filepath.ToSlash(rel), nil
}

// fileExists reports whether path is a regular file.
func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// writeNew creates path with data, failing when it exists.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, os.ErrExist) {
		return inputerr.Wrap(fmt.Errorf("init: %s already exists; not overwritten", path))
	}
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("init: %w", err)
	}
	return f.Close()
}
