package refdoc

import (
	"strings"

	"github.com/fusiontune/fusiontune/backend"
)

// parametersPage is the table of the parameters experiment files take,
// from the parameter table (backend.ParamTable): its entries but the
// ConfigKey ones, then the weights and custom.*.
func parametersPage() string {
	var b strings.Builder
	b.WriteString(`# Experiment parameters

The parameters an experiment file's baseline, variants, grid and search
space set (see [experiments](../experiments.md)). Index-time parameters
rebuild the index (a restart with a new index); query-time ones need at
most a restart; replayed ones are fused offline from collected candidate
lists (see [modes and replay](../experiments.md#modes-and-replay)). Each
backend kind takes the parameters its page lists
([engines](../engines/README.md)).

`)
	t := newTable("parameter", "value", "stage", "what it sets")
	weight, _ := backend.LookupParam(backend.WeightPattern)
	for _, p := range append(backend.ParamTable(), weight) {
		if p.ConfigKey {
			continue
		}
		value := p.Kind.String()
		if p.Values != nil {
			value = "`" + strings.Join(p.Values, "`, `") + "`"
		}
		stage := "query-time"
		switch {
		case p.IndexTime:
			stage = "index-time"
		case p.Replayable:
			stage = "query-time, replayed"
		}
		t.row(code(p.Name), value, stage, strings.ReplaceAll(p.Doc, "<retriever>", "`<retriever>`"))
	}
	t.row(code(backend.CustomPattern), "anything", "passed through", "a value for external backends' templates, unchecked")
	b.WriteString(t.String())
	return b.String()
}
