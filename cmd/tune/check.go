package main

import (
	"context"
	"github.com/fusiontune/fusiontune/tuner/dataset"
	"sync"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/checkfiles"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	tunesettings "github.com/fusiontune/fusiontune/cmd/tune/internal/settings"

	"github.com/fusiontune/fusiontune/experiments"
)

var checkSpec = cli.Spec{Name: "check", Usage: "[--kind auto|experiments|settings|golden] [--format native|trec|beir] [--judgments FILE] [--qrels-split NAME] [--corpus FILE] [--config FILE] [--min-judgments N] [--min-relevant N] [--min-category N] [--max-imbalance X] [--against OLD] FILE...", Flags: []cli.Flag{
	cli.String("kind", "auto", "file kind: auto (detect) or experiments, settings, golden"),
	cli.String("format", "", "golden-set `format`: native, trec or beir (default: detect from the path)"),
	cli.String("judgments", "", "separate judgments `file` (JSONL or TREC qrels) for the one golden set given"),
	cli.String("qrels-split", experiments.DefaultBEIRSplit, "qrels split read from a BEIR folder"),
	cli.String("corpus", "", "corpus `file` (BEIR corpus.jsonl or JSONL) to resolve judgments against: finds excerpts matching nothing"),
	cli.String("config", "", "settings `file` whose dataset.corpus (or engine corpus) and dataset.allow_missing_docs a golden set is checked with (default ./tune.yaml when present)"),
	cli.Int("min-judgments", dataset.DefaultMinJudgments, "golden-set lint: warn about queries with fewer judgments (0: off)").Range(0, 1e6),
	cli.Int("min-relevant", dataset.DefaultMinRelevant, "golden-set lint: warn about queries with fewer relevant judgments (0: off)").Range(0, 1e6),
	cli.Int("min-category", dataset.DefaultMinCategory, "golden-set lint: warn about categories with fewer queries (0: off)").Range(0, 1e6),
	cli.Float("max-imbalance", dataset.DefaultMaxImbalance, "golden-set lint: warn when the largest category has more than this many times the smallest's queries (0: off)").Range(0, 1e6),
	cli.String("against", "", "golden-set lint: an earlier version `file` of the golden set; warn about query ids removed or reused for another text")}}

func runCheck(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(checkSpec, args)
	if err != nil {
		return err
	}
	opts := checkfiles.Options{Format: fs.Str("format"), Judgments: fs.Str("judgments"), QrelsSplit: fs.Str("qrels-split"), Corpus: fs.Str("corpus"),
		Settings: sync.OnceValues(func() (*tunesettings.Settings, error) { return checkfiles.ReadSettings(fs.Str("config")) }), Log: a.stderr,
		Lint:    dataset.LintOptions{MinJudgments: fs.Int("min-judgments"), MinRelevant: fs.Int("min-relevant"), MinCategory: fs.Int("min-category"), MaxImbalance: fs.Float("max-imbalance")},
		Against: fs.Str("against")}
	return inputError(checkfiles.CheckAll(fs.Args(), fs.Str("kind"), opts, a.stdout, a.stderr))
}
