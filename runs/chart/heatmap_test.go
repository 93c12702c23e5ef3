package chart_test

import (
	"encoding/xml"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/runs/chart"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// checkGolden compares got with testdata/<test>.golden.html, rewriting it
// with -update.
func checkGolden(t *testing.T, got string) {
	t.Helper()
	path := filepath.Join("testdata", t.Name()+".golden.html")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (run with -update after checking the change):\n%s", path, got)
	}
}

// svgHeatmap is what the tests read of a heatmap's SVG.
type svgHeatmap struct {
	Rects []struct {
		Class string  `xml:"class,attr"`
		X     float64 `xml:"x,attr"`
		Y     float64 `xml:"y,attr"`
		Fill  string  `xml:"fill,attr"`
		Title string  `xml:"title"`
	} `xml:"rect"`
	Texts []struct {
		Class string  `xml:"class,attr"`
		X     float64 `xml:"x,attr"`
		Y     float64 `xml:"y,attr"`
		Value float64 `xml:"data-value,attr"`
		Text  string  `xml:",chardata"`
	} `xml:"text"`
}

// dataRows reads a data table (well-formed XHTML) into its rows of cells.
func dataRows(t *testing.T, h string) [][]string {
	t.Helper()
	var d struct {
		Summary string `xml:"summary"`
		Table   struct {
			Head []string `xml:"thead>tr>th"`
			Rows []struct {
				Cells []string `xml:"td"`
			} `xml:"tbody>tr"`
		} `xml:"table"`
	}
	if err := xml.Unmarshal([]byte(h), &d); err != nil {
		t.Fatalf("data table not well formed: %v\n%s", err, h)
	}
	if d.Summary != "data" || len(d.Table.Head) == 0 {
		t.Fatalf("data table without its summary or head: %s", h)
	}
	out := [][]string{d.Table.Head}
	for _, r := range d.Table.Rows {
		out = append(out, r.Cells)
	}
	return out
}

// grid is a 5 × 3 grid over fusion.k and the bm25 weight with the method
// constant, scores that do not follow either parameter.
func grid() []map[string]any {
	var ps []map[string]any
	for _, k := range []float64{60, 5, 20, 10, 40} {
		for _, w := range []float64{0.8, 0.2, 0.5} {
			ps = append(ps, map[string]any{"fusion.method": "rrf", "fusion.k": k, "fusion.weights.bm25": w})
		}
	}
	return ps
}

// TestHeatmapAxes: one heatmap per pair of numeric parameters; its x
// labels are fusion.k's values in numeric order left to right, its y
// labels the weights in numeric order bottom to top; every cell prints
// the best score of the trials in it; the best trial's cell is outlined.
func TestHeatmapAxes(t *testing.T) {
	lb := leaderboard(grid(), "", false)
	hs := chart.Heatmaps(lb)
	if len(hs) != 1 || hs[0].X != "fusion.k" || hs[0].Y != "fusion.weights.bm25" || hs[0].Binned {
		t.Fatalf("heatmaps %+v, want one of fusion.k × fusion.weights.bm25 by value", hs)
	}
	var s svgHeatmap
	if err := xml.Unmarshal([]byte(hs[0].SVG), &s); err != nil {
		t.Fatalf("not well-formed SVG: %v\n%s", err, hs[0].SVG)
	}
	var xv, xx, yv, yy []float64
	var printed []string
	for _, tx := range s.Texts {
		switch tx.Class {
		case "xtick":
			xv, xx = append(xv, tx.Value), append(xx, tx.X)
		case "ytick":
			yv, yy = append(yv, tx.Value), append(yy, -tx.Y)
		case "value":
			printed = append(printed, tx.Text)
		}
	}
	if !slices.Equal(xv, []float64{5, 10, 20, 40, 60}) || !slices.IsSorted(xx) {
		t.Errorf("x labels %v at %v, want 5 10 20 40 60 left to right", xv, xx)
	}
	if !slices.Equal(yv, []float64{0.2, 0.5, 0.8}) || !slices.IsSorted(yy) {
		t.Errorf("y labels %v at %v (negated y), want 0.2 0.5 0.8 bottom to top", yv, yy)
	}
	var cells, best int
	for _, r := range s.Rects {
		if strings.HasPrefix(r.Class, "cell") {
			cells++
		}
		if r.Class == "cell best" {
			best++
			if e, _ := lb.Best(); !strings.Contains(r.Title, "("+e.Name+")") {
				t.Errorf("outlined cell %q does not hold the best trial %s", r.Title, e.Name)
			}
		}
	}
	if cells != 15 || best != 1 || len(printed) != 15 {
		t.Errorf("%d cells, %d outlined, %d printed; want 15, 1, 15", cells, best, len(printed))
	}
	for _, e := range lb.Trials {
		if !slices.Contains(printed, fmt.Sprintf("%.3f", e.Primary)) {
			t.Errorf("trial %s's score %.3f is not printed in its cell (%v)", e.Name, e.Primary, printed)
		}
	}
	rows := dataRows(t, string(hs[0].Data))
	if len(rows) != 16 || !slices.Equal(rows[0], []string{"fusion.k", "fusion.weights.bm25", "trials", "best primary", "best trial"}) {
		t.Errorf("data table %q, want a head and 15 cells", rows)
	}
}

// TestHeatmapBins: sampled values are cut into ranges of equal width,
// every successful trial counted once; a text parameter and pruned
// trials take no part.
func TestHeatmapBins(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var ps []map[string]any
	for range 40 {
		ps = append(ps, map[string]any{"fusion.method": []string{"rrf", "linear"}[rng.IntN(2)],
			"fusion.k": float64(1 + rng.IntN(100)), "fusion.weights.bm25": rng.Float64()})
	}
	lb := leaderboard(ps, "tpe", false)
	lb.Trials[3].Status = runs.StatusPruned
	hs := chart.Heatmaps(lb)
	if len(hs) != 1 || !hs[0].Binned {
		t.Fatalf("heatmaps %+v, want one, binned", hs)
	}
	rows := dataRows(t, string(hs[0].Data))
	n := 0
	for _, r := range rows[1:] {
		c, err := strconv.Atoi(r[2])
		if err != nil || !strings.Contains(r[0], "–") || !strings.Contains(r[1], "–") {
			t.Fatalf("row %q: want ranges and a count", r)
		}
		n += c
	}
	if n != 39 {
		t.Errorf("cells count %d trials, want the 39 successful ones", n)
	}
	if hs := chart.Heatmaps(leaderboard([]map[string]any{{"fusion.method": "rrf", "fusion.k": 5.0}, {"fusion.method": "linear", "fusion.k": 10.0}}, "", false)); len(hs) != 0 {
		t.Errorf("one numeric parameter gave %d heatmaps", len(hs))
	}
}

// TestImportance: η² against hand-computed values. Parameter a splits the
// scores into 0.41 and 0.51 means (η² = 0.02 / 0.0208), b into 0.45 and
// 0.47 (η² = 0.0008 / 0.0208); a grid, or too few trials, has none.
func TestImportance(t *testing.T) {
	scores := []float64{0.40, 0.42, 0.40, 0.42, 0.50, 0.52, 0.50, 0.52}
	var trials []runs.TrialRecord
	for i, p := range scores {
		a, b := []float64{1, 2}[i/4], []float64{10, 20}[i%2]
		trials = append(trials, runs.TrialRecord{Index: i, Name: fmt.Sprintf("t%d", i), Status: runs.StatusOK, Primary: p, Sampler: "tpe",
			Params: map[string]any{"fusion.k": a, "fusion.depth": b}})
	}
	lb := runs.NewLeaderboard("mean of NDCG@10", []string{"NDCG@10"}, trials)
	imp, ok := chart.Importances(lb)
	if !ok || len(imp.Params) != 2 {
		t.Fatalf("importances %+v, %v", imp.Params, ok)
	}
	want := []chart.ParamImportance{{Name: "fusion.k", Eta2: 0.02 / 0.0208, Bins: 2, Trials: 8}, {Name: "fusion.depth", Eta2: 0.0008 / 0.0208, Bins: 2, Trials: 8}}
	for i, w := range want {
		g := imp.Params[i]
		if g.Name != w.Name || math.Abs(g.Eta2-w.Eta2) > 1e-9 || g.Bins != w.Bins || g.Trials != w.Trials {
			t.Errorf("importance %d = %+v, want %+v", i, g, w)
		}
	}
	rows := dataRows(t, string(imp.Data))
	if len(rows) != 3 || rows[1][0] != "fusion.k" || rows[1][1] != "0.962" {
		t.Errorf("data table %q", rows)
	}
	for i := range trials {
		trials[i].Sampler = ""
	}
	if _, ok := chart.Importances(runs.NewLeaderboard("mean of NDCG@10", []string{"NDCG@10"}, trials)); ok {
		t.Error("a grid has an importance")
	}
	if _, ok := chart.Importances(runs.NewLeaderboard("mean of NDCG@10", []string{"NDCG@10"}, trials[:4])); ok {
		t.Error("four trials have an importance")
	}
}

// TestDataTables: every chart's data table lists what it draws: a
// parameter chart each trial in the order of its value, the history each
// trial in order with a best-so-far that never goes down, the deltas each
// query with its outcome.
func TestDataTables(t *testing.T) {
	lb := leaderboard(grid(), "", false)
	c := only(t, chart.Params(lb), "fusion.k")
	rows := dataRows(t, string(c.Data))
	if len(rows) != 16 {
		t.Fatalf("parameter data %d rows, want a head and 15", len(rows))
	}
	var ks []float64
	for _, r := range rows[1:] {
		k, _ := strconv.ParseFloat(r[1], 64)
		ks = append(ks, k)
	}
	if !slices.IsSorted(ks) || ks[0] != 5 {
		t.Errorf("fusion.k column %v, want ascending from 5", ks)
	}
	rows = dataRows(t, string(chart.HistoryData(lb)))
	prev := 0.0
	for i, r := range rows[1:] {
		b, _ := strconv.ParseFloat(r[4], 64)
		if r[0] != strconv.Itoa(i) || b < prev {
			t.Errorf("history row %q after best %.4f", r, prev)
		}
		prev = b
	}
	rows = dataRows(t, string(chart.DeltasData([]chart.Delta{{"q2", -0.1}, {"q1", 0.2}, {"q3", 0}}, 0.001, "b vs a")))
	if want := [][]string{{"query", "Δ", "outcome"}, {"q2", "-0.1000", "worse"}, {"q3", "+0.0000", "tied"}, {"q1", "+0.2000", "better"}}; fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("deltas data %q, want %q", rows, want)
	}
}

// TestChartsGolden: the heatmap, importance and data-table markup of a
// small study, byte for byte.
func TestChartsGolden(t *testing.T) {
	lb := leaderboard(grid(), "random", false)
	var b strings.Builder
	for _, h := range chart.Heatmaps(lb) {
		b.WriteString(string(h.SVG) + "\n" + string(h.Data) + "\n")
	}
	imp, ok := chart.Importances(lb)
	if !ok {
		t.Fatal("no importance for a sampled run of 15 trials")
	}
	b.WriteString(string(imp.SVG) + "\n" + string(imp.Data) + "\n")
	if p, ok := chart.ParallelCoordinates(lb); ok {
		b.WriteString(string(p.SVG) + "\n" + string(p.Data) + "\n")
	}
	b.WriteString(string(only(t, chart.Params(lb), "fusion.weights.bm25").Data) + "\n")
	checkGolden(t, b.String())
}

// TestParallelCoordinates: a study's trials each a line through its
// values, larger numbers higher on their axis, the best trial drawn last;
// a grid has none.
func TestParallelCoordinates(t *testing.T) {
	lb := leaderboard(grid(), "random", false)
	p, ok := chart.ParallelCoordinates(lb)
	if !ok || !slices.Equal(p.Axes, []string{"fusion.k", "fusion.weights.bm25", "primary"}) {
		t.Fatalf("parallel coordinates %v, %v", p.Axes, ok)
	}
	var s struct {
		Lines []struct {
			Class  string `xml:"class,attr"`
			Points string `xml:"points,attr"`
			Title  string `xml:"title"`
		} `xml:"polyline"`
	}
	if err := xml.Unmarshal([]byte(p.SVG), &s); err != nil {
		t.Fatalf("not well-formed SVG: %v", err)
	}
	if len(s.Lines) != 15 || s.Lines[14].Class != "trial best" {
		t.Fatalf("%d lines, the last %q; want 15, the best last", len(s.Lines), s.Lines[len(s.Lines)-1].Class)
	}
	yOn := map[float64]float64{} // fusion.k → y on its axis
	for _, l := range s.Lines {
		f := strings.Fields(l.Points)
		if len(f) != 3 {
			t.Fatalf("line %q has %d points", l.Points, len(f))
		}
		_, y0, _ := strings.Cut(f[0], ",")
		y, _ := strconv.ParseFloat(y0, 64)
		k, _ := lb.Trials[slices.IndexFunc(lb.Trials, func(e runs.Entry) bool { return strings.HasPrefix(l.Title, e.Name+":") })].Value("fusion.k")
		yOn[k.(float64)] = y
	}
	ks := []float64{5, 10, 20, 40, 60}
	for i := 1; i < len(ks); i++ {
		if yOn[ks[i]] >= yOn[ks[i-1]] {
			t.Errorf("fusion.k %v at y %.1f, not above %v at %.1f", ks[i], yOn[ks[i]], ks[i-1], yOn[ks[i-1]])
		}
	}
	if rows := dataRows(t, string(p.Data)); len(rows) != 16 || rows[1][3] != "0.5000" {
		t.Errorf("data table %q: want the best (0.5000) first of 15", rows)
	}
	if _, ok := chart.ParallelCoordinates(leaderboard(grid(), "", false)); ok {
		t.Error("a grid has parallel coordinates")
	}
}
