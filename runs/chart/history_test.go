package chart_test

import (
	"encoding/xml"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/runs/chart"
)

// TestHistory: trials at their number in order on a numeric x axis, the
// step line never going down, pruned trials drawn apart as crosses, the
// baseline a dashed line, the best ringed.
func TestHistory(t *testing.T) {
	primaries := []float64{0.40, 0.38, 0.43, 0.41, 0.47, 0.39, 0.45, 0.44, 0.46, 0.42, 0.48, 0.30}
	var trials []runs.TrialRecord
	for i, p := range primaries {
		tr := runs.TrialRecord{Index: i, Name: "t" + strconv.Itoa(i), Baseline: i == 0, Status: runs.StatusOK, Primary: p,
			Params: map[string]any{"fusion.k": i + 1}}
		if i == 10 || i == 3 { // pruned at a partial score, one above every complete trial
			tr.Status, tr.Fraction = runs.StatusPruned, 0.25
		}
		trials = append(trials, tr)
	}
	lb := runs.NewLeaderboard("mean of NDCG@10", []string{"NDCG@10"}, trials)
	var s struct {
		Texts []struct {
			Class string  `xml:"class,attr"`
			X     float64 `xml:"x,attr"`
			Text  string  `xml:",chardata"`
		} `xml:"text"`
		Circles []struct {
			Class string `xml:"class,attr"`
			Trial int    `xml:"data-index,attr"`
		} `xml:"circle"`
		Paths []struct {
			Class string `xml:"class,attr"`
			D     string `xml:"d,attr"`
			Trial int    `xml:"data-index,attr"`
		} `xml:"path"`
		Lines []struct {
			Class string `xml:"class,attr"`
			Dash  string `xml:"stroke-dasharray,attr"`
		} `xml:"line"`
	}
	svg := string(chart.History(lb))
	if err := xml.Unmarshal([]byte(svg), &s); err != nil {
		t.Fatalf("not well-formed SVG: %v\n%s", err, svg)
	}
	var ticks []float64
	var xs []float64
	for _, tx := range s.Texts {
		if tx.Class == "tick" {
			v, err := strconv.ParseFloat(tx.Text, 64)
			if err != nil {
				t.Errorf("x tick %q is not a number", tx.Text)
			}
			ticks, xs = append(ticks, v), append(xs, tx.X)
		}
	}
	if len(ticks) < 2 || !slices.IsSorted(ticks) || !slices.IsSorted(xs) {
		t.Errorf("x ticks %v at %v: want numbers in order, left to right", ticks, xs)
	}
	var pruned []int
	for _, p := range s.Paths {
		if p.Class == "pt pruned" {
			pruned = append(pruned, p.Trial)
		}
	}
	if !slices.Equal(pruned, []int{3, 10}) {
		t.Errorf("pruned crosses for trials %v, want 3 and 10", pruned)
	}
	var best []int
	for _, c := range s.Circles {
		if c.Class == "pt best" {
			best = append(best, c.Trial)
		}
	}
	if !slices.Equal(best, []int{4}) { // 0.47: the pruned 0.48 does not count
		t.Errorf("best ringed: %v, want trial 4", best)
	}
	var step string
	for _, p := range s.Paths {
		if p.Class == "best-so-far" {
			step = p.D
		}
	}
	// Ys of the step line: SVG y grows downwards, so the best so far
	// never increases it.
	var ys []float64
	for _, m := range regexp.MustCompile(`V([0-9.]+)`).FindAllStringSubmatch(step, -1) {
		y, _ := strconv.ParseFloat(m[1], 64)
		ys = append(ys, y)
	}
	if len(ys) != 2 || ys[0] < ys[1] || !strings.HasPrefix(step, "M") { // 0.40 → 0.43 → 0.47
		t.Errorf("best-so-far path %q: want two steps up", step)
	}
	if !slices.ContainsFunc(s.Lines, func(l struct {
		Class string `xml:"class,attr"`
		Dash  string `xml:"stroke-dasharray,attr"`
	}) bool {
		return l.Class == "baseline" && l.Dash != ""
	}) {
		t.Error("no dashed baseline line")
	}
}
