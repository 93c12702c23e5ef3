package refdoc

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/metrics/treceval"
)

// metricKind is one measure of the metrics package, as its source
// declares it: the constant's name, its doc comment and its aliases.
type metricKind struct {
	kind    metrics.Kind
	ident   string
	doc     string
	aliases []string
}

// metricKinds reads metrics/metric.go: the Kind constants in order with
// their doc comments, and the aliases of kindAliases.
func metricKinds(root string) ([]metricKind, error) {
	path := filepath.Join(root, "metrics", "metric.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var kinds []metricKind
	byIdent := map[string]int{}
	ast.Inspect(f, func(n ast.Node) bool {
		g, ok := n.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST || len(kinds) > 0 {
			return true
		}
		for i, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if i == 0 && (vs.Type == nil || fmt.Sprint(vs.Type) != "Kind") {
				return true // not the block of measures
			}
			byIdent[vs.Names[0].Name] = len(kinds)
			kinds = append(kinds, metricKind{kind: metrics.Kind(i + 1), ident: vs.Names[0].Name, doc: strings.Join(strings.Fields(vs.Doc.Text()), " ")})
		}
		return false
	})
	if len(kinds) == 0 {
		return nil, fmt.Errorf("%s: no const block of Kind", path)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || vs.Names[0].Name != "kindAliases" || len(vs.Values) != 1 {
			return true
		}
		for _, e := range vs.Values[0].(*ast.CompositeLit).Elts {
			kv := e.(*ast.KeyValueExpr)
			alias, err := strconv.Unquote(kv.Key.(*ast.BasicLit).Value)
			if err != nil {
				return false
			}
			if i, ok := byIdent[kv.Value.(*ast.Ident).Name]; ok {
				kinds[i].aliases = append(kinds[i].aliases, alias)
			}
		}
		return false
	})
	for i := range kinds {
		sort.Strings(kinds[i].aliases)
		if kinds[i].kind.String() == "" || strings.HasPrefix(kinds[i].kind.String(), "Kind(") {
			return nil, fmt.Errorf("%s: constant %s has no name", path, kinds[i].ident)
		}
	}
	return kinds, nil
}

// metricsPage lists the measures a scorecard, the primary score, a gate
// or stats.metrics may name, and the trec_eval measures of tune eval.
func metricsPage(root string) (string, error) {
	kinds, err := metricKinds(root)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(`# Metrics

A metric is a measure and its cutoff, ` + "`KIND@k`" + ` (` + "`NDCG@10`" + `, ` + "`Recall@20`" + `);
` + "`KIND`" + ` alone scores the whole ranking. Names are matched without regard to
case (` + "`ndcg@10`" + ` is ` + "`NDCG@10`" + `); the cutoff is a positive integer. Only
` + "`Avg_Grade`" + ` takes a divisor (` + "`Avg_Grade@10/3`" + `), and ` + "`R-Precision`" + ` takes
no cutoff. Every measure reads graded judgments on the golden set's scale
(see [grade scales](../golden-sets.md#grade-scales)): the binary measures
count grades at or above ` + "`relevant`" + `, the Strong and Exact ones grades at or
above ` + "`strong`" + ` and ` + "`exact`" + `. An unjudged document counts as irrelevant
(see [coverage](../results.md#coverage) for the judged-only values).

Metric names go in ` + "`score.primary`" + `, ` + "`score.metrics`" + `, ` + "`stats.metrics`" + `,
gates and constraints (see [settings](settings.md)).

`)
	t := newTable("measure", "also spelled", "definition (k: the cutoff)")
	for _, k := range kinds {
		aliases := make([]string, len(k.aliases))
		for i, a := range k.aliases {
			aliases[i] = code(a)
		}
		t.row(code(k.kind.String()), strings.Join(aliases, ", "), strings.TrimPrefix(strings.TrimPrefix(k.doc, k.ident+" "), "is "))
	}
	b.WriteString(t.String())
	fmt.Fprintf(&b, `
## The default primary score

`+"`score.primary: default`"+` is the mean of:

%s

on the default 0–3 scale; on another scale `+"`Avg_Grade`"+` is divided by the
scale's top grade. `+"`score.primary`"+` may instead name one metric
(`+"`NDCG@10`"+`) or a weighted sum (`+"`0.5*NDCG@10+0.5*Recall@20`"+`; weights are
used as written).

## The judged-only values

Beside each metric with a cutoff of 1 to 20, a leaderboard can show its
judged-only value, named with `+"`_J`"+` (`+"`NDCG@10_J`"+`): the unjudged
documents are removed from the ranking first, as trec_eval's `+"`-J`"+` does
(`+"`tune leaderboard --judged-only`"+`).

## tune eval's measures

`+"`tune eval`"+` scores TREC run files with trec_eval's own measures and names
(`+"`-m MEASURE[.PARAMS]`"+`, `+"`-m official`"+`, `+"`-m all_trec`"+`):

%s
`, composite(), measureList(treceval.Names()))
	return b.String(), nil
}

func composite() string {
	var parts []string
	for _, term := range metrics.DefaultComposite.Terms {
		parts = append(parts, code(term.Metric.String()))
	}
	return strings.Join(parts, ", ")
}

func measureList(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = code(n)
	}
	return strings.Join(parts, ", ") + "."
}
