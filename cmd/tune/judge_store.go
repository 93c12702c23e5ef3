package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/userfile"
	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

var judgeImportSpec = judgeSpec("import", cli.ArgRange(1, 1, "one FILE"),
	cli.String("judge", "", "who labelled the file (a person's name)"),
	cli.String("source", labels.SourceHuman, "source of qrels labels: "+strings.Join(labels.Sources, ", ")).OneOf(labels.Sources...))

func runJudgeImport(ctx context.Context, a *app, args []string) error {
	fs, e, err := a.parseJudge(judgeImportSpec, args)
	if err != nil {
		return err
	}
	data, err := userfile.Read(fs.Arg(0), userfile.Default)
	if err != nil {
		return inputError(fmt.Errorf("judge import: %w", err))
	}
	r, err := judging.Import(ctx, e, judging.ImportRequest{Path: fs.Arg(0), Data: data, Judge: fs.Str("judge"), Source: fs.Str("source"), Time: time.Now().UTC()})
	if err != nil {
		return err
	}
	r.WriteText(a.stdout)
	return nil
}

var judgeLabelsSpec = judgeSpec("labels", cli.NoArgs,
	cli.String("format", "jsonl", "jsonl or qrels").OneOf(labels.FormatJSONL, labels.FormatQrels),
	cli.String("judge", "", "only this judge's labels"),
	cli.Bool("all", false, "jsonl: every label ever appended, oldest first"),
	outFileFlag)

func runJudgeLabels(ctx context.Context, a *app, args []string) error {
	fs, e, err := a.parseJudge(judgeLabelsSpec, args)
	if err != nil {
		return err
	}
	r, err := judging.Labels(ctx, e, judging.LabelsRequest{Format: fs.Str("format"), Judge: fs.Str("judge"), All: fs.Bool("all")})
	if err != nil {
		return err
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
