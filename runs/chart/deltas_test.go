package chart_test

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs/chart"
)

// TestDeltas: bars sorted from the largest loss to the largest gain,
// classed by sign with ties apart, and the counts in the title and the
// accessible name.
func TestDeltas(t *testing.T) {
	ds := []chart.Delta{{"q1", 0.2}, {"q2", -0.1}, {"q3", 0}, {"q4", 0.05}, {"q5", -0.3}, {"q6", 1e-12}}
	if w, tie, l := chart.WinTieLoss(ds, 1e-9); w != 2 || tie != 2 || l != 2 {
		t.Errorf("WinTieLoss = %d %d %d, want 2 2 2", w, tie, l)
	}
	svg := string(chart.Deltas(ds, 1e-9, "b vs a"))
	var s struct {
		Label string `xml:"aria-label,attr"`
		Rects []struct {
			Class string `xml:"class,attr"`
			Title string `xml:"title"`
		} `xml:"rect"`
	}
	if err := xml.Unmarshal([]byte(svg), &s); err != nil {
		t.Fatalf("not well-formed SVG: %v\n%s", err, svg)
	}
	var got []string
	for _, r := range s.Rects {
		got = append(got, r.Class+" "+strings.Fields(r.Title)[0])
	}
	want := "loss q5:|loss q2:|tie q3:|tie q6:|gain q4:|gain q1:"
	if strings.Join(got, "|") != want {
		t.Errorf("bars %v, want %s", got, want)
	}
	if s.Label != "per-query differences, b vs a: 2 better, 2 tied, 2 worse" {
		t.Errorf("aria-label %q", s.Label)
	}
	if chart.Deltas(nil, 0, "x") != "" {
		t.Error("a chart for no queries")
	}
}
