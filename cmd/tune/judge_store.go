package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/experiments/labels"
	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/cli"
	"github.com/fusiontune/fusiontune/tuner/judging"
)

var judgeImportUsage = usage("judge-import")

var judgeImportSpec = judgeSpec("import", judgeImportUsage,
	cli.String("judge", "", "who labelled the file (a person's name)"),
	cli.String("source", labels.SourceHuman, "source of qrels labels: "+strings.Join(labels.Sources, ", ")).OneOf(labels.Sources...))

func runJudgeImport(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(judgeImportSpec, args)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("judge import: want one FILE (got %d arguments)", fs.NArg())
	}
	path := fs.Arg(0)
	data, err := os.ReadFile(path)
	if err != nil {
		return inputError(fmt.Errorf("judge import: %w", err))
	}
	e, err := a.openJudgeEnv(fs)
	if err != nil {
		return err
	}
	r, err := judging.Import(ctx, e, judging.ImportRequest{Path: path, Data: data, Judge: fs.Str("judge"), Source: fs.Str("source"), Time: time.Now().UTC()})
	if err != nil {
		return runError(err)
	}
	r.WriteText(a.stdout)
	return nil
}

var judgeLabelsUsage = usage("judge-labels")

var judgeLabelsSpec = judgeSpec("labels", judgeLabelsUsage,
	cli.String("format", "jsonl", "jsonl or qrels").OneOf(labels.FormatJSONL, labels.FormatQrels),
	cli.String("judge", "", "only this judge's labels"),
	cli.Bool("all", false, "jsonl: every label ever appended, oldest first"),
	cli.String("out", "", "file to write (default stdout)"))

func runJudgeLabels(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(judgeLabelsSpec, args)
	if err != nil {
		return err
	}
	req := judging.LabelsRequest{Format: fs.Str("format"), Judge: fs.Str("judge"), All: fs.Bool("all")}
	if fs.NArg() > 0 {
		return usageErrorf("judge labels: unexpected argument %q", fs.Arg(0))
	}
	if req.All && req.Format != labels.FormatJSONL {
		return usageErrorf("judge labels: --all needs --format jsonl")
	}
	e, err := a.openJudgeEnv(fs)
	if err != nil {
		return err
	}
	r, err := judging.Labels(ctx, e, req)
	if err != nil {
		return runError(err)
	}
	fmt.Fprintln(a.stderr, r.Note())
	return a.writeOut(fs.Str("out"), r.Data)
}

// writeOut writes data to the file out (its directory must exist), or to
// stdout when out is "".
func (a *app) writeOut(out string, data []byte) error {
	if out == "" {
		_, err := a.stdout.Write(data)
		return err
	}
	if dir := filepath.Dir(out); dir != "" {
		if _, err := os.Stat(dir); err != nil {
			return inputError(fmt.Errorf("--out: %w", err))
		}
	}
	return atomicfile.Write(out, data, 0o644)
}
