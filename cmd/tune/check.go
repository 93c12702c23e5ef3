package main

import (
	"context"
	"fmt"
	"github.com/fusiontune/fusiontune/internal/cli"
	"os"
	"strings"
	"sync"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner"
)

// checkKind is one kind of user file tune check validates.
type checkKind struct {
	name string
	// match reports whether path is of this kind (by name or content).
	match func(path string) bool
	// check validates path, returning the summary printed after "ok FILE"
	// and warnings, or the problems found.
	check func(path string, opts checkOptions) (summary string, warnings []error, err error)
}

// checkKinds are the kinds of file tune check knows, tried in order; the
// golden set, matching anything, comes last.
func checkKinds() []checkKind {
	return []checkKind{
		{name: "experiments", match: tuner.IsExperimentFile, check: func(path string, _ checkOptions) (string, []error, error) {
			return tuner.CheckExperiments(path)
		}},
		{name: "settings", match: isSettingsFile, check: checkSettingsFile},
		{name: "golden", match: func(string) bool { return true }, check: checkGoldenSet},
	}
}

// checkOptions are the flags of tune check that some kinds read.
type checkOptions struct {
	format     string // golden-set format: native, trec, beir or "" to detect
	judgments  string // separate judgments file for a golden set
	qrelsSplit string // BEIR qrels split
	corpus     string // corpus to resolve golden-set judgments against
	// settings are the settings (tune.yaml or --config) read once when a
	// golden set needs them: their corpus when --corpus is not given and
	// dataset.allow_missing_docs (nil without a settings file).
	settings func() (*settings, error)
}

var checkSpec = cli.Spec{Name: "check", Usage: "[--kind auto|experiments|settings|golden] [--format native|trec|beir] [--judgments FILE] [--qrels-split NAME] [--corpus FILE] [--config FILE] FILE...", Flags: []cli.Flag{
	cli.String("kind", "auto", "file kind: auto (detect) or experiments, settings, golden"),
	cli.String("format", "", "golden-set `format`: native, trec or beir (default: detect from the path)"),
	cli.String("judgments", "", "separate judgments `file` (JSONL or TREC qrels) for the one golden set given"),
	cli.String("qrels-split", experiments.DefaultBEIRSplit, "qrels split read from a BEIR folder"),
	cli.String("corpus", "", "corpus `file` (BEIR corpus.jsonl or JSONL) to resolve judgments against: finds excerpts matching nothing"),
	cli.String("config", "", "settings `file` whose dataset.corpus (or engine corpus) and dataset.allow_missing_docs a golden set is checked with (default ./tune.yaml when present)")}}

func runCheck(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(checkSpec, args)
	if err != nil {
		return err
	}
	kind := fs.Str("kind")
	opts := checkOptions{format: fs.Str("format"), judgments: fs.Str("judgments"), qrelsSplit: fs.Str("qrels-split"), corpus: fs.Str("corpus")}
	opts.settings = sync.OnceValues(func() (*settings, error) { return checkSettings(fs.Str("config")) })
	files := fs.Args()
	if len(files) == 0 {
		return usageErrorf("check: no files given")
	}
	if opts.judgments != "" && len(files) != 1 {
		return usageErrorf("check: --judgments needs exactly one golden set (got %d files)", len(files))
	}
	bad := 0
	for _, path := range files {
		k, err := kindFor(path, kind)
		if err != nil {
			return err
		}
		summary, warnings, err := k.check(path, opts)
		for _, w := range warnings {
			fmt.Fprintf(a.stderr, "warning: %v\n", w)
		}
		if err != nil {
			bad++
			fmt.Fprintln(a.stderr, err)
			continue
		}
		fmt.Fprintf(a.stdout, "ok %s (%s)\n", path, summary)
	}
	if bad > 0 {
		return inputError(fmt.Errorf("check: %d of %d files have problems", bad, len(files)))
	}
	return nil
}

func kindFor(path, name string) (checkKind, error) {
	for _, k := range checkKinds() {
		if (name == "auto" && k.match(path)) || k.name == name {
			return k, nil
		}
	}
	return checkKind{}, usageErrorf("check: unknown --kind %q (expected auto or %s)", name, kindNames())
}

func kindNames() string {
	var names []string
	for _, k := range checkKinds() {
		names = append(names, k.name)
	}
	return strings.Join(names, ", ")
}

// checkGoldenSet checks a golden set (tuner.CheckGolden) with the
// corpus of corpusFor.
func checkGoldenSet(path string, opts checkOptions) (string, []error, error) {
	lo := experiments.LoadOptions{Format: opts.format, Judgments: opts.judgments, Split: opts.qrelsSplit}
	return tuner.CheckGolden(path, lo, opts.corpusFor)
}

// corpusFor is the corpus a golden set is resolved against — --corpus,
// else the settings' dataset.corpus or embedded engine corpus, else none —
// and whether the settings allow judged documents missing from it.
func (o checkOptions) corpusFor() (string, bool, error) {
	s, err := o.settings()
	if err != nil {
		return "", false, err
	}
	if s == nil {
		return o.corpus, false, nil
	}
	corpus := o.corpus
	if corpus == "" {
		corpus = s.Dataset.Corpus
	}
	if corpus == "" {
		corpus = s.EngineCorpusPath()
	}
	return corpus, s.Dataset.AllowMissingDocs, nil
}

// checkSettings reads the settings file tune check takes a golden set's
// corpus from: file (--config), else ./tune.yaml when present, else none.
func checkSettings(file string) (*settings, error) {
	if file == "" {
		if _, err := os.Stat(defaultSettingsFile); err != nil {
			return nil, nil
		}
	}
	return loadSettings(file, nil, nil)
}
