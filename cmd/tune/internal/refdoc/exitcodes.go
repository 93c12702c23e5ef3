package refdoc

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
)

// exitCode is one exit code and what it means.
type exitCode struct {
	name    string // the constant in cmd/tune/internal/cli
	code    int
	meaning string
}

// exitCodes are tune's exit codes (cmd/tune/internal/cli); the test holds
// them equal to the constants there.
var exitCodes = []exitCode{
	{"ExitOK", cli.ExitOK, "success: the command did what it was asked; a sweep ran every trial successfully and its gates passed"},
	{"ExitFailed", cli.ExitFailed, "a run failed or a gate failed: a sweep stopped (failure budget exhausted, stopped early after consecutive same failures, a record could not be written, interrupted, no trial succeeded), a gate failed (`tune gate`, `tune check-quality`, a sweep's gates), a promotion was refused or failed and was rolled back, replayed and live scores disagreed"},
	{"ExitUsage", cli.ExitUsage, "a usage or input error: an unknown command or flag, a flag value out of its range, a bad settings, experiment, golden-set, corpus, qrels or run file (the message names `file:line:col` or the field), a backend that cannot start on the baseline config; nothing is written"},
	{"ExitPartial", cli.ExitPartial, "the sweep finished and recorded every trial, but some trials failed (each recorded with its reason, within `eval.failure_budget`)"},
}

// exitConstants reads the names of the Exit* constants declared in
// cmd/tune/internal/cli/exit.go.
func exitConstants(root string) ([]string, error) {
	path := filepath.Join(root, "cmd", "tune", "internal", "cli", "exit.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					if strings.HasPrefix(n.Name, "Exit") {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names, nil
}

// exitCodesPage is the table of exit codes.
func exitCodesPage(root string) (string, error) {
	names, err := exitConstants(root)
	if err != nil {
		return "", err
	}
	if len(names) != len(exitCodes) {
		return "", fmt.Errorf("cli declares %v, the page documents %d codes", names, len(exitCodes))
	}
	var b strings.Builder
	b.WriteString(`# Exit codes

Every tune command exits with one of these codes; results go to stdout,
progress, warnings and errors to stderr.

`)
	t := newTable("code", "meaning")
	for _, c := range exitCodes {
		t.row(fmt.Sprint(c.code), c.meaning)
	}
	b.WriteString(t.String())
	b.WriteString(`
` + "`tune check-quality`" + ` exits 0 when every gate passed, 1 when one failed (or
its trial failed), 2 on a usage or input error (bad settings, a relative
gate without ` + "`--against`" + `, an unreadable baseline, a service that never became
healthy). ` + "`tune gate`" + ` exits 1 when a gate fails. In CI, treat 1 and 3 as
"look at the run" and 2 as "fix the input".
`)
	return b.String(), nil
}

// ExitCodeNames returns the Exit* constants cmd/tune/internal/cli
// declares (read from its source under root) and those the page
// documents.
func ExitCodeNames(root string) (declared, documented []string) {
	declared, _ = exitConstants(root)
	for _, c := range exitCodes {
		documented = append(documented, c.name)
	}
	return declared, documented
}
