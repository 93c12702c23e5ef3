package chart_test

import (
	"encoding/xml"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/runs/chart"
)

// effective is the embedded engine's own answer for a parameter a trial
// leaves unset: its default config with the trial's parameters set.
func effective(params map[string]any, name string) (any, bool) {
	base := engine.DefaultConfig()
	base.Corpus.Path = "/corpus.jsonl"
	c, err := base.WithParams(params)
	if err != nil {
		return nil, false
	}
	return c.Param(name)
}

// leaderboard records trials (the first the baseline) with primary scores
// that do not follow the parameter, so that an order by score cannot pass
// for an order by value.
func leaderboard(params []map[string]any, sampler string, withDefaults bool) runs.Leaderboard {
	var trials []runs.TrialRecord
	for i, p := range params {
		name := "baseline"
		if i > 0 {
			name = fmt.Sprintf("t%02d", i)
		}
		trials = append(trials, runs.TrialRecord{Index: i, Name: name, Baseline: i == 0, Params: p, Status: runs.StatusOK,
			Primary: 0.4 + 0.01*float64((i*37)%11), Sampler: map[bool]string{true: sampler}[i > 0]})
	}
	lb := runs.NewLeaderboard("default composite: mean of NDCG@10", []string{"NDCG@10"}, trials)
	if withDefaults {
		lb.SetDefaults(effective)
	}
	return lb
}

// svgChart is what the tests read of a chart's SVG.
type svgChart struct {
	XMLName xml.Name `xml:"svg"`
	Texts   []struct {
		Class string  `xml:"class,attr"`
		X     float64 `xml:"x,attr"`
		Text  string  `xml:",chardata"`
	} `xml:"text"`
	Circles []struct {
		Class string  `xml:"class,attr"`
		X     float64 `xml:"cx,attr"`
		Title string  `xml:"title"`
	} `xml:"circle"`
}

// parse reads c's SVG as XML (it must be well formed) and returns it
// with its tick labels in x order.
func parse(t *testing.T, c chart.Param) (svgChart, []string, []float64) {
	t.Helper()
	var s svgChart
	if err := xml.Unmarshal([]byte(c.SVG), &s); err != nil {
		t.Fatalf("chart %s: not well-formed SVG: %v\n%s", c.Name, err, c.SVG)
	}
	var labels []string
	var xs []float64
	for _, tx := range s.Texts {
		if tx.Class == "tick" {
			labels, xs = append(labels, tx.Text), append(xs, tx.X)
		}
	}
	if !slices.IsSorted(xs) {
		t.Fatalf("chart %s: ticks not drawn left to right: %v %v", c.Name, labels, xs)
	}
	return s, labels, xs
}

func only(t *testing.T, cs []chart.Param, name string) chart.Param {
	t.Helper()
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no chart of %s among %d", name, len(cs))
	return chart.Param{}
}

// TestNumericAxisOrder: the baseline leaves fusion.k unset, the other
// trials set 5, 10, 20, 40, 60 and 100 (listed out of order); the SVG's
// tick labels, read left to right, are those numbers in numeric order
// (not 10, 100, 20, ... as strings sort), on a log scale (the values are
// geometric), and the baseline stands at the engine's default k, 60.
func TestNumericAxisOrder(t *testing.T) {
	params := []map[string]any{{"fusion.method": "rrf"}}
	for _, k := range []float64{40, 100, 5, 60, 20, 10} {
		params = append(params, map[string]any{"fusion.method": "rrf", "fusion.k": k})
	}
	c := only(t, chart.Params(leaderboard(params, "", true)), "fusion.k")
	s, labels, xs := parse(t, c)
	var nums []float64
	for _, l := range labels {
		v, err := strconv.ParseFloat(l, 64)
		if err != nil {
			t.Fatalf("tick %q is not a number (labels %q)", l, labels)
		}
		nums = append(nums, v)
	}
	if want := []float64{5, 10, 20, 40, 60, 100}; !slices.Equal(nums, want) {
		t.Errorf("tick labels left to right %q, want %v", labels, want)
	}
	if c.Scale != chart.Log || c.Defaults != 1 || !strings.Contains(string(c.SVG), "fusion.k (log scale)") {
		t.Errorf("scale %s, %d at the default, want log and 1", c.Scale, c.Defaults)
	}
	// On a log scale 5→10, 10→20 and 20→40 are equal steps.
	if d1, d2 := xs[1]-xs[0], xs[3]-xs[2]; math.Abs(d1-d2) > 0.2 {
		t.Errorf("log steps %.1f and %.1f differ", d1, d2)
	}
	sixty := xs[slices.Index(labels, "60")]
	for _, p := range s.Circles {
		if strings.HasPrefix(p.Title, "baseline:") && (p.X != sixty || !strings.Contains(p.Title, "fusion.k = 60 (default)") || !strings.Contains(p.Class, "baseline")) {
			t.Errorf("baseline drawn at x %.1f (%q, %q), want at the tick 60 (x %.1f)", p.X, p.Class, p.Title, sixty)
		}
	}
	if len(s.Circles) != len(params) {
		t.Errorf("%d points, want %d", len(s.Circles), len(params))
	}
}

// TestAxes: which axis a parameter gets, and its labels.
func TestAxes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var sampled, clustered, decades, nearOne []map[string]any
	for range 30 {
		sampled = append(sampled, map[string]any{"fusion.weights.bm25": rng.Float64(), "fusion.k": 5 + float64(rng.IntN(116))})
		// a sampler that found its optimum near k 20 (gaps small there,
		// wide towards 100), and one that spans three decades
		clustered = append(clustered, map[string]any{"fusion.k": math.Round(5 + 95*math.Pow(rng.Float64(), 3))})
		decades = append(decades, map[string]any{"fusion.k": math.Round(math.Pow(10, 3*rng.Float64()))})
		// weights crowding near 1, a few down to 0.001
		nearOne = append(nearOne, map[string]any{"fusion.weights.bm25": 1 - 0.999*math.Pow(rng.Float64(), 6)})
	}
	for _, tc := range []struct {
		name, param string
		params      []map[string]any
		sampler     string
		defaults    bool
		scale       string
		ticks       string // the labels left to right; "" to check only order and spacing
	}{
		{"arithmetic", "fusion.k", []map[string]any{{"fusion.k": 40.0}, {"fusion.k": 60.0}, {"fusion.k": 80.0}}, "", true, chart.Linear, "40 60 80"},
		{"unset without a recorded default", "fusion.k", []map[string]any{{}, {"fusion.k": 100.0}, {"fusion.k": 20.0}, {"fusion.k": 5.0}}, "", false, chart.Log, "default 5 20 100"},
		{"sampled floats", "fusion.weights.bm25", sampled, "tpe", true, chart.Linear, ""},
		{"sampled ints", "fusion.k", sampled, "tpe", true, chart.Linear, ""},
		{"sampled ints, clustered", "fusion.k", clustered, "tpe", true, chart.Linear, ""},
		{"sampled ints over decades", "fusion.k", decades, "tpe", true, chart.Log, ""},
		{"sampled weights near 1", "fusion.weights.bm25", append(nearOne, map[string]any{"fusion.weights.bm25": 0.001}), "tpe", true, chart.Linear, ""},
		{"categories, no line", "fusion.method", []map[string]any{{"fusion.method": "rrf"}, {"fusion.method": "linear"}}, "", true, chart.Categories, "linear rrf"},
		{"strings", "fusion.method", []map[string]any{{}, {"fusion.method": "linear"}, {"fusion.method": "combsum"}}, "", true, chart.Categories, "combsum linear rrf"},
		{"chunk sizes with the default", "chunk.size", []map[string]any{{}, {"chunk.size": 64.0}, {"chunk.size": 128.0}, {"chunk.size": 192.0}, {"chunk.size": 256.0}}, "", true, chart.Linear, "0 64 128 192 256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := only(t, chart.Params(leaderboard(tc.params, tc.sampler, tc.defaults)), tc.param)
			_, labels, xs := parse(t, c)
			if c.Scale != tc.scale {
				t.Errorf("scale %s, want %s", c.Scale, tc.scale)
			}
			if tc.ticks != "" && strings.Join(labels, " ") != tc.ticks {
				t.Errorf("ticks %q, want %q", strings.Join(labels, " "), tc.ticks)
			}
			if tc.scale == chart.Categories {
				if c.Line {
					t.Error("a line joins categories")
				}
				return
			}
			var nums []float64
			for _, l := range labels {
				if v, err := strconv.ParseFloat(l, 64); err == nil {
					nums = append(nums, v)
				}
			}
			if !slices.IsSorted(nums) || len(labels) > 8 || len(labels) < 2 {
				t.Errorf("tick labels %q: want 2 to 8 in numeric order", labels)
			}
			for i := 1; i < len(xs); i++ {
				if room := xs[i] - xs[i-1]; room < 3*float64(len(labels[i])+len(labels[i-1]))+6 {
					t.Errorf("labels %q and %q overlap (%.1f px apart)", labels[i-1], labels[i], room)
				}
			}
			if tc.sampler != "" && c.Line {
				t.Error("a line joins 30 sampled values")
			}
		})
	}
}

// TestNothingToChart: a parameter with one value, and a run with one
// drawable trial, get no chart; a failed trial is not drawn.
func TestNothingToChart(t *testing.T) {
	lb := leaderboard([]map[string]any{{"fusion.k": 60.0}, {"fusion.k": 60.0, "depth": 100.0}, {"fusion.k": 60.0, "depth": 100.0}}, "", true)
	if cs := chart.Params(lb); len(cs) != 0 {
		t.Errorf("charts %v of parameters with one value (depth defaults to 100)", cs[0].Name)
	}
	lb = leaderboard([]map[string]any{{"fusion.k": 60.0}, {"fusion.k": 20.0}}, "", true)
	lb.Trials[1].Status = runs.StatusFailed
	if cs := chart.Params(lb); len(cs) != 0 {
		t.Errorf("%d charts of one drawable trial", len(cs))
	}
}
