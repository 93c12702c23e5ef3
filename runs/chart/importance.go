package chart

import (
	"cmp"
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/internal/paramtext"
	"github.com/fusiontune/fusiontune/runs"
)

// ImportanceMethod names how parameter importance is computed, for the
// pages that show it.
const ImportanceMethod = "η² (correlation ratio): the share of the variance of the primary score across the successful trials explained by the mean score in each bin of the parameter's values"

// minImportanceTrials is the fewest successful trials importance is
// computed over.
const minImportanceTrials = 8

// The importance chart's geometry, in pixels: the bars' left edge (the
// names stand before it), their longest length, one row's height.
const (
	ImportanceWidth = 480
	iLeft, iBar     = 170.0, 240.0
	iRow, iTop      = 22.0, 8.0
)

// ParamImportance is one parameter's importance.
type ParamImportance struct {
	// Name is the parameter.
	Name string
	// Eta2 is η² in [0, 1]: between-bin sum of squares over the total.
	Eta2 float64
	// Bins is the number of bins holding a trial, Trials the trials.
	Bins, Trials int
}

// Importance is the parameter importance of a study.
type Importance struct {
	// Params is every varying parameter's importance, the largest first
	// (ties by name).
	Params []ParamImportance
	// SVG is the bar chart, Data its table.
	SVG, Data template.HTML
}

// Importances computes, for a study (a run some of whose trials a sampler
// proposed) with at least minImportanceTrials successful trials, each
// varying parameter's importance as η², the correlation ratio: the
// trials' primary scores grouped by the parameter's bin (a numeric
// parameter binned as the heatmaps bin it, each text its own group, the
// trials leaving it unset with no known default a group of their own),
// η² = Σ n_g (mean_g − mean)² / Σ (y − mean)². It is a marginal measure:
// it ignores interactions, and rises with the number of bins on few
// trials. False for a grid or too few trials.
func Importances(lb runs.Leaderboard) (Importance, bool) {
	ok, varying, isStudy := study(lb)
	if !isStudy || len(varying) == 0 {
		return Importance{}, false
	}
	var imp Importance
	for _, name := range varying {
		imp.Params = append(imp.Params, eta2(name, ok))
	}
	slices.SortStableFunc(imp.Params, func(a, b ParamImportance) int {
		if c := cmp.Compare(b.Eta2, a.Eta2); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	imp.SVG = importanceSVG(imp.Params, lb.Measure())
	rows := make([][]string, len(imp.Params))
	for i, p := range imp.Params {
		rows[i] = []string{p.Name, fmt.Sprintf("%.3f", p.Eta2), fmt.Sprint(p.Bins), fmt.Sprint(p.Trials)}
	}
	imp.Data = dataTable("parameter importance (η²)", []string{"parameter", "η²", "bins", "trials"}, rows)
	return imp, true
}

// eta2 is parameter name's importance over the successful trials ok.
func eta2(name string, ok []runs.Entry) ParamImportance {
	xs := numbers(ok, name)
	var bins binning
	if len(xs) >= 2 {
		bins = newBinning(xs)
	}
	groups := map[string][]float64{}
	total := 0.0
	for _, e := range ok {
		key := "\x00unset"
		if v, known := e.Value(name); known {
			key = paramtext.Exact(v)
			if x, isNum := paramtext.Float(v); isNum && len(xs) >= 2 {
				key = fmt.Sprint(bins.index(x))
			}
		}
		groups[key] = append(groups[key], e.Primary)
		total += e.Primary
	}
	mean := total / float64(len(ok))
	between, all := 0.0, 0.0
	for _, g := range groups {
		m := 0.0
		for _, y := range g {
			m += y
			all += (y - mean) * (y - mean)
		}
		m /= float64(len(g))
		between += float64(len(g)) * (m - mean) * (m - mean)
	}
	p := ParamImportance{Name: name, Bins: len(groups), Trials: len(ok)}
	if all > 0 {
		p.Eta2 = min(between/all, 1)
	}
	return p
}

// importanceSVG draws one horizontal bar per parameter, the largest
// first, its η² printed after it.
func importanceSVG(ps []ParamImportance, measure string) template.HTML {
	esc := template.HTMLEscapeString
	height := int(iTop*2 + iRow*float64(len(ps)) + 18)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="importance-chart" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="parameter importance, η² of the primary (%s)" font-family="Liberation Sans, Arial, sans-serif" font-size="12">`,
		ImportanceWidth, height, ImportanceWidth, height, esc(measure))
	for i, p := range ps {
		y := iTop + float64(i)*iRow
		fmt.Fprintf(&b, `<text class="name" x="%.1f" y="%.1f" text-anchor="end" fill="%s">%s</text>`, iLeft-6, y+14, colorText, esc(p.Name))
		fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" data-param="%s"><title>%s</title></rect>`,
			iLeft, y+3, max(p.Eta2*iBar, 0.5), iRow-6, colorLine, esc(p.Name), esc(fmt.Sprintf("%s: η² %.3f over %d bins, %d trials", p.Name, p.Eta2, p.Bins, p.Trials)))
		fmt.Fprintf(&b, `<text class="value" x="%.1f" y="%.1f" fill="%s">%.3f</text>`, iLeft+max(p.Eta2*iBar, 0.5)+4, y+14, colorText, p.Eta2)
	}
	fmt.Fprintf(&b, `<text class="xtitle" x="%.1f" y="%d" fill="%s">η²: share of the primary's variance explained (0–1)</text></svg>`, iLeft, height-6, colorText)
	return template.HTML(b.String()) // every text inside was escaped above
}

// study is lb's successful trials and varying parameters, and whether lb
// is a study with enough of them for importance and parallel coordinates:
// a sampler proposed some trial, and minImportanceTrials succeeded.
func study(lb runs.Leaderboard) (ok []runs.Entry, varying []string, isStudy bool) {
	for _, e := range lb.Trials {
		if e.Status == runs.StatusOK {
			ok = append(ok, e)
		}
	}
	sampled := slices.ContainsFunc(lb.Trials, func(e runs.Entry) bool { return e.Sampler != "" })
	return ok, lb.Varying(), sampled && len(ok) >= minImportanceTrials
}
