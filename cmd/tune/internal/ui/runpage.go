package ui

import (
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/internal/paramtext"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/runs/chart"
)

// DefaultMetricColumns is how many of the scorecard's metrics the run
// page's leaderboard shows when the metric picker chose none and the run
// varied few parameters; each parameter beyond the fifth takes one's
// place, down to one, so that the table fits a 1280-pixel screen.
const DefaultMetricColumns = 3

// metricColumns is how many metric columns the leaderboard shows by
// default beside varying parameter columns.
func metricColumns(varying int) int {
	return max(1, min(DefaultMetricColumns, DefaultMetricColumns-(varying-5)))
}

// column is one sortable leaderboard column.
type column struct {
	Key, Label string
	Title      string // the header's tooltip ("" none)
	Link       string // the URL sorting by it
	Sorted     string // "▲", "▼" or ""
	AriaSort   string // "ascending", "descending" or "none"
	Num        bool   // right-aligned numbers
}

// lbRow is one leaderboard entry as the run page shows it, formatted
// (the template only places strings: a 200-trial page stays cheap).
type lbRow struct {
	Rank int
	// Name is the trial's (links and data-trial use it), Label the name it
	// is shown under (runs.Leaderboard.Labels).
	Name, Label            string
	Params                 []string // one per varying parameter, rounded
	Primary, Delta, Sig    string
	Status                 string
	Pruned, Failed         bool
	Cells                  []string // one per metric column shown
	Cats                   []string // one per category column
	TrialHref              string
	CompareHref, MicroHref string // "" for a trial that did not succeed
}

// summary is the run page's first card: what the run says to do.
type summary struct {
	Verdict, Kind string
	// Best is the best trial's name, BestLabel its label; Primary its
	// score, Delta its difference with the baseline and Interval the
	// decision's interval ("" when there is no comparison).
	Best, BestLabel, Primary, Delta, Interval, Sig string
	Params                                         []string // the best trial's varying parameters, "k = v"
	Apply                                          string   // the command promoting the trial to ship
}

// metricChoice is one metric of the leaderboard's picker.
type metricChoice struct {
	Name string
	On   bool
}

type runData struct {
	ID        string
	Manifest  runs.Manifest
	LB        runs.Leaderboard
	Summary   summary
	Constants []string // "name = value" of the parameters no trial varies
	Columns   []column
	Metrics   []metricChoice
	CatCols   []string
	Rows      []lbRow
	Filter    string
	ShowCats  bool
	Notes     []string
	Gates     *runs.Gates
	Promos    []promotion
	Best      string
	Pruned    int
	// History is the optimization-history chart, ParamCharts the varied
	// parameters' charts (the static report's, runs/chart).
	History, HistoryData template.HTML
	ParamCharts          []chart.Param
	// Heatmaps are the pairs of numeric parameters', Importance (for a
	// study) each parameter's η², ImportanceMethod how it is computed.
	Heatmaps         []chart.Heatmap
	Importance       *chart.Importance
	ImportanceMethod string
	// Parallel is a study's parallel-coordinates chart.
	Parallel *chart.Parallel
}

// runPage shows one run: the summary card, the leaderboard sorted,
// filtered and with the metric columns as asked, the optimization
// history, the gates, promotions and the parameter charts.
func (s *Server) runPage(w http.ResponseWriter, r *http.Request) {
	run, lb, ok := s.runBoard(w, r)
	if !ok {
		return
	}
	d := runData{ID: run.ID(), Manifest: run.Manifest, LB: lb, Filter: r.FormValue("filter"), ShowCats: r.FormValue("cats") == "1", Notes: lb.Notes()}
	if best, ok := lb.Best(); ok {
		d.Best = best.Name
	}
	if g, ok, err := run.ReadGates(); err == nil && ok {
		d.Gates = &g
	}
	for _, p := range s.promotions() {
		if p.Run == run.ID() {
			d.Promos = append(d.Promos, p)
		}
	}
	varying := lb.Varying()
	labels := lb.Labels()
	d.Summary = newSummary(run.ID(), lb, labels, varying)
	d.Constants = constants(lb, varying)
	shown := r.Form["m"]
	if len(shown) == 0 {
		shown = lb.Metrics[:min(metricColumns(len(varying)), len(lb.Metrics))]
	}
	var metrics []string
	for _, m := range lb.Metrics {
		on := slices.Contains(shown, m)
		d.Metrics = append(d.Metrics, metricChoice{Name: m, On: on})
		if on {
			metrics = append(metrics, m)
		}
	}
	d.CatCols = categoryColumns(lb.Trials)
	keys := append([]string{"rank", "name"}, varying...)
	keys = append(keys, "primary", "delta")
	keys = append(keys, metrics...)
	if d.ShowCats {
		for _, c := range d.CatCols {
			keys = append(keys, "cat:"+c)
		}
	}
	key, desc := r.FormValue("sort"), r.FormValue("desc") == "1"
	if !slices.Contains(keys, key) {
		key, desc = "rank", false
	}
	keep := "&filter=" + urlq(d.Filter) + "&cats=" + b01(d.ShowCats)
	for _, m := range metrics {
		keep += "&m=" + urlq(m)
	}
	d.Columns = sortColumns(run.ID(), keys, key, desc, keep, lb.Measure())
	entries := filterEntries(lb.Trials, labels, d.Filter)
	sortEntries(entries, key, desc)
	against := lb.Baseline
	if against == "" {
		against = d.Best
	}
	for _, e := range entries {
		row := newLBRow(run.ID(), against, e, varying, metrics, d.CatCols, d.ShowCats)
		row.Label = labels[e.Name]
		if row.Pruned {
			d.Pruned++
		}
		d.Rows = append(d.Rows, row)
	}
	d.History, d.HistoryData = chart.History(lb), chart.HistoryData(lb)
	d.ParamCharts = chart.Params(lb)
	d.Heatmaps = chart.Heatmaps(lb)
	if imp, ok := chart.Importances(lb); ok {
		d.Importance, d.ImportanceMethod = &imp, chart.ImportanceMethod
	}
	if p, ok := chart.ParallelCoordinates(lb); ok {
		d.Parallel = &p
	}
	s.render(w, "run", "Run "+run.ID(), d)
}

// runBoard is the run the request's path names and its leaderboard;
// false, with a 404 page answered, when either is missing.
func (s *Server) runBoard(w http.ResponseWriter, r *http.Request) (*runs.Run, runs.Leaderboard, bool) {
	run, err := s.resolve(r.PathValue("id"))
	if err != nil {
		s.fail(w, http.StatusNotFound, err)
		return nil, runs.Leaderboard{}, false
	}
	lb, err := run.ReadLeaderboard()
	if err != nil {
		s.fail(w, http.StatusNotFound, fmt.Errorf("run %s has no leaderboard yet: %w", run.ID(), err))
		return nil, runs.Leaderboard{}, false
	}
	return run, lb, true
}

// newSummary is the summary card of run runID: the verdict, the trial it
// ships (or the best trial, when it keeps the baseline) with its score,
// Δ, interval and varying parameters, and the command promoting it.
func newSummary(runID string, lb runs.Leaderboard, labels map[string]string, varying []string) summary {
	var sm summary
	best, ok := lb.Best()
	if v := lb.Verdict; v != nil {
		sm.Verdict, sm.Kind = v.Line, v.Kind
		if v.Best != "" {
			if e, err := lb.Find(v.Best); err == nil {
				best, ok = e, true
			}
		} else if v.Trial != "" && v.Trial != lb.Baseline {
			if e, err := lb.Find(v.Trial); err == nil {
				best, ok = e, true
			}
		}
	}
	if !ok {
		if sm.Verdict == "" {
			sm.Verdict = "no trial succeeded: nothing to ship"
		}
		return sm
	}
	sm.Best, sm.BestLabel, sm.Primary = best.Name, labels[best.Name], fmt.Sprintf("%.4f", best.Primary)
	if best.Delta != nil {
		sm.Delta = fmt.Sprintf("%+.4f", *best.Delta)
	}
	if c := best.Comparison; c != nil {
		sm.Interval = fmt.Sprintf("[%+.4f, %+.4f] (%s interval)", c.Low, c.High, levelText(c.Level))
		sm.Sig = sigText(c)
	}
	for _, k := range varying {
		if v, ok := best.Value(k); ok {
			sm.Params = append(sm.Params, k+" = "+paramtext.Rounded(v))
		}
	}
	ship := best.Name
	if v := lb.Verdict; v != nil && v.Kind != runs.VerdictKeep && v.Trial != "" {
		ship = v.Trial
	}
	sm.Apply = "tune apply " + shellWord(runID) + " " + shellWord(ship)
	if lb.Verdict != nil && lb.Verdict.Kind == runs.VerdictKeep {
		sm.Apply += " --force"
	}
	return sm
}

// levelText is an interval's level as a percentage, as short as exact
// (95%, 99.174%).
func levelText(level float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", 100*level), "0"), ".") + "%"
}

// sigText is a comparison's mark in words: "+" and "-" as they are, "n.s."
// for a difference that is not significant.
func sigText(c *runs.Comparison) string {
	if c.Mark != "" {
		return c.Mark
	}
	return "n.s."
}

// shellWord quotes s for a POSIX shell when it holds anything but
// letters, digits and ._,:=/+@%- .
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._,:=/+@%-", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// constants are the parameters every trial gives the same value, as
// "name = value", sorted: stated once above the leaderboard.
func constants(lb runs.Leaderboard, varying []string) []string {
	seen := map[string]string{}
	for _, e := range lb.Trials {
		for k, v := range e.Params {
			if !slices.Contains(varying, k) {
				seen[k] = paramtext.Rounded(v)
			}
		}
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(seen)) {
		out = append(out, k+" = "+seen[k])
	}
	return out
}

// categoryColumns is every category a trial has a score in, sorted.
func categoryColumns(trials []runs.Entry) []string {
	cats := map[string]bool{}
	for _, e := range trials {
		for c := range e.Categories {
			cats[c] = true
		}
	}
	return slices.Sorted(maps.Keys(cats))
}

// sortColumns are the leaderboard's sortable column headers for the run
// sorted by key (desc: descending), the primary score's named by its
// measure: each links to the page sorted by it, keeping the query keep;
// a click on the sorted column reverses it, others sort ascending for
// rank, name and parameters, descending otherwise.
func sortColumns(runID string, keys []string, key string, desc bool, keep, measure string) []column {
	var cols []column
	for _, k := range keys {
		c := column{Key: k, Label: k, Num: true, AriaSort: "none"}
		ascFirst := k == "rank" || k == "name"
		switch {
		case k == "rank":
			c.Label, c.Title = "#", "rank"
		case k == "name":
			c.Label, c.Num = "trial", false
		case k == "primary":
			c.Label, c.Title = "primary", "primary ("+measure+")"
		case k == "delta":
			c.Label, c.Title = "Δ · sig", "Δ primary vs baseline, and whether it is significant"
		case strings.HasPrefix(k, "cat:"):
			c.Label, c.Title = strings.TrimPrefix(k, "cat:"), "primary on category "+strings.TrimPrefix(k, "cat:")
		case strings.Contains(k, "."): // a parameter
			c.Label, c.Title, ascFirst = paramtext.Short(k), k, true
		}
		nextDesc := !ascFirst
		if k == key {
			nextDesc = !desc
			c.Sorted = map[bool]string{false: "▲", true: "▼"}[desc]
			c.AriaSort = map[bool]string{false: "ascending", true: "descending"}[desc]
		}
		c.Link = fmt.Sprintf("/run/%s?sort=%s&desc=%s%s", runID, urlq(k), b01(nextDesc), keep)
		cols = append(cols, c)
	}
	return cols
}

// newLBRow is trial e's leaderboard row in run runID: its values of the
// varying parameters, its scores ("—" for those it lacks), with the
// categories' when showCats, and, when it succeeded, links comparing it
// with against and opening it in the microscope.
func newLBRow(runID, against string, e runs.Entry, varying, metrics, cats []string, showCats bool) lbRow {
	row := lbRow{Rank: e.Rank, Name: e.Name, Label: e.Name, Primary: fmt.Sprintf("%.4f", e.Primary),
		Delta: "—", Status: e.Status, TrialHref: "/run/" + runID + "/trial/" + urlPath(e.Name)}
	for _, k := range varying {
		text := "—"
		if v, ok := e.Value(k); ok {
			text = paramtext.Rounded(v)
			if _, set := e.Params[k]; !set {
				text += "*"
			}
		}
		row.Params = append(row.Params, text)
	}
	if e.Delta != nil {
		row.Delta = fmt.Sprintf("%+.4f", *e.Delta)
	}
	switch e.Status {
	case runs.StatusOK:
		if e.Mode != "" {
			row.Status = e.Mode
		}
		row.CompareHref = "/compare?a=" + urlq(runID+":"+against) + "&b=" + urlq(runID+":"+e.Name)
		row.MicroHref = "/microscope?run=" + urlq(runID) + "&trial=" + urlq(e.Name)
	case runs.StatusPruned:
		row.Pruned = true
		if e.Fraction > 0 {
			row.Status = fmt.Sprintf("pruned at %.0f%%", 100*e.Fraction)
		}
	default:
		row.Failed = true
	}
	if e.Comparison != nil {
		row.Sig = sigText(e.Comparison)
	}
	for _, m := range metrics {
		row.Cells = append(row.Cells, score(e.Scorecard, m))
	}
	if showCats {
		for _, c := range cats {
			row.Cats = append(row.Cats, score(e.Categories[c], "primary"))
		}
	}
	return row
}

// score is m's value in sc to 4 decimals, "—" when absent.
func score(sc map[string]float64, m string) string {
	if v, ok := sc[m]; ok {
		return fmt.Sprintf("%.4f", v)
	}
	return "—"
}

// statusOrder ranks complete trials first, then pruned ones, then failed
// ones: a pruned trial's partial score never sorts it above a complete
// trial.
func statusOrder(status string) int {
	switch status {
	case runs.StatusOK:
		return 0
	case runs.StatusPruned:
		return 1
	}
	return 2
}

// sortEntries sorts es by key (rank, name, a parameter, primary, delta,
// a metric or "cat:" and a category), stably, complete trials before
// pruned ones before failed ones whatever the key, ties by rank.
func sortEntries(es []runs.Entry, key string, desc bool) {
	text := func(e runs.Entry) (string, float64, bool) { // a parameter's value
		v, ok := e.Value(key)
		if !ok {
			return "", 0, false
		}
		if x, isNum := paramtext.Float(v); isNum {
			return "", x, true
		}
		return paramtext.Exact(v), 0, true
	}
	val := func(e runs.Entry) float64 {
		switch {
		case key == "rank":
			return float64(e.Rank)
		case key == "primary":
			return e.Primary
		case key == "delta":
			if e.Delta == nil {
				return -1e300
			}
			return *e.Delta
		case strings.HasPrefix(key, "cat:"):
			if v, ok := e.Categories[strings.TrimPrefix(key, "cat:")]["primary"]; ok {
				return v
			}
			return -1e300
		}
		if v, ok := e.Scorecard[key]; ok {
			return v
		}
		if _, x, ok := text(e); ok {
			return x
		}
		return -1e300
	}
	sort.SliceStable(es, func(i, j int) bool {
		if a, b := statusOrder(es[i].Status), statusOrder(es[j].Status); a != b {
			return a < b
		}
		if key == "name" {
			if desc {
				return es[i].Name > es[j].Name
			}
			return es[i].Name < es[j].Name
		}
		if ta, _, oka := text(es[i]); oka && ta != "" {
			if tb, _, okb := text(es[j]); okb && tb != ta {
				return (ta < tb) != desc
			}
		}
		a, b := val(es[i]), val(es[j])
		if a == b {
			return es[i].Rank < es[j].Rank
		}
		if desc {
			return a > b
		}
		return a < b
	})
}

// paramText is a trial's parameters as "k=v k=v", sorted by name, values
// rounded for reading (a sampled weight 0.974), then those it leaves
// unset at the backend's default it runs on ("fusion.k=60 (default)"):
// what the leaderboard's filter matches.
func paramText(e runs.Entry) string {
	parts := make([]string, 0, len(e.Params)+len(e.Defaults))
	for _, k := range slices.Sorted(maps.Keys(e.Params)) {
		parts = append(parts, k+"="+paramtext.Rounded(e.Params[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(e.Defaults)) {
		parts = append(parts, k+"="+paramtext.Rounded(e.Defaults[k])+" (default)")
	}
	return strings.Join(parts, " ")
}
