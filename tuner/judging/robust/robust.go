package robust

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/fusiontune/fusiontune/tuner/judging/decision"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// Defaults and ranges of the analysis.
const (
	// DefaultResamples is how many label resamples are drawn; 0..MaxResamples.
	DefaultResamples = 20
	MaxResamples     = 10000
	// DefaultTop is how many of the reference's best trials tau is over;
	// 2..1000.
	DefaultTop = 5
	// MinSurvival is the share of resamples the winner must lead in to be
	// robust.
	MinSurvival = 0.9
	// UnknownConfidence is the confidence of a label whose judge gave
	// none.
	UnknownConfidence = 0.9
)

// Input is what Analyze weighs.
type Input struct {
	Trials []decision.Trial
	// Gold are the golden set's own judgments; Labels each judge's latest
	// label of each pair (labels.Store.Latest).
	Gold   scoring.Judgments
	Labels []labels.Label
	Scorer scoring.Scorer
	// MaxGrade is the scale's top grade (resampled grades are 0..MaxGrade).
	MaxGrade int
	// Top is DefaultTop when 0; Resamples DefaultResamples when nil.
	Top       int
	Resamples *int
	Seed      uint64
}

// View is the trials' order under one set of judgments.
type View struct {
	// Name is "reference", a judge's name, or "resample N".
	Name   string `json:"name"`
	Labels int    `json:"labels,omitempty"`
	Leader string `json:"leader"`
	// Survives is true when Leader is the reference's winner.
	Survives bool `json:"survives"`
	// Tau is Kendall's tau-a of the reference's top trials' primary
	// scores under the reference and under this view (NaN-free: 0 when
	// undefined).
	Tau float64 `json:"kendall_tau"`
	// Top are the view's best trials, best first.
	Top []string `json:"top"`
	// scores are the trials' primary scores under the view.
	scores map[string]float64
}

// Report is the analysis.
type Report struct {
	Winner    string `json:"winner"`
	Reference View   `json:"reference"`
	Judges    []View `json:"judges"`
	// Resamples is how many resamples were drawn; Survived in how many
	// the winner led; MeanTau the mean of their tau.
	Resamples int     `json:"resamples"`
	Survived  int     `json:"survived"`
	MeanTau   float64 `json:"mean_tau"`
	Seed      uint64  `json:"seed"`
	// Robust is true when the winner leads under every judge and in at
	// least MinSurvival of the resamples.
	Robust bool `json:"robust"`
}

// Analyze weighs the run (see the package doc).
func Analyze(in Input) (*Report, error) {
	if len(in.Trials) == 0 {
		return nil, errors.New("robust: no trials")
	}
	if in.Top == 0 {
		in.Top = DefaultTop
	}
	resamples := DefaultResamples
	if in.Resamples != nil {
		resamples = *in.Resamples
	}
	var errs []error
	if in.Top < 2 || in.Top > 1000 {
		errs = append(errs, fmt.Errorf("--top must be in 2..1000 (got %d)", in.Top))
	}
	if resamples < 0 || resamples > MaxResamples {
		errs = append(errs, fmt.Errorf("--resamples must be in 0..%d (got %d)", MaxResamples, resamples))
	}
	if in.MaxGrade < 1 {
		errs = append(errs, fmt.Errorf("robust: top grade must be >= 1 (got %d)", in.MaxGrade))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	refJ, _ := labels.Effective(in.Gold, in.Labels)
	ref := scores(in, refJ)
	order := orderOf(in.Trials, ref)
	top := order[:min(in.Top, len(order))]
	r := &Report{Winner: order[0], Resamples: resamples, Seed: in.Seed}
	r.Reference = r.view("reference", ref, top, in.Trials)
	byJudge := map[string][]labels.Label{}
	for _, l := range in.Labels {
		byJudge[l.Judge] = append(byJudge[l.Judge], l)
	}
	judges := make([]string, 0, len(byJudge))
	for j := range byJudge {
		judges = append(judges, j)
	}
	slices.Sort(judges)
	r.Robust = true
	for _, name := range judges {
		j, _ := labels.Effective(in.Gold, byJudge[name])
		v := r.view(name, scores(in, j), top, in.Trials)
		v.Labels = len(byJudge[name])
		r.Judges = append(r.Judges, v)
		r.Robust = r.Robust && v.Survives
	}
	rng := rand.New(rand.NewPCG(in.Seed, 0x726f62757374))
	tauSum := 0.0
	for i := range resamples {
		j, _ := labels.Effective(in.Gold, resample(in.Labels, in.MaxGrade, rng))
		v := r.view(fmt.Sprintf("resample %d", i+1), scores(in, j), top, in.Trials)
		if v.Survives {
			r.Survived++
		}
		tauSum += v.Tau
	}
	if resamples > 0 {
		r.MeanTau = round(tauSum / float64(resamples))
		r.Robust = r.Robust && float64(r.Survived) >= MinSurvival*float64(resamples)
	}
	return r, nil
}

// scores is each trial's mean primary score under j.
func scores(in Input, j scoring.Judgments) map[string]float64 {
	out := make(map[string]float64, len(in.Trials))
	for _, t := range in.Trials {
		out[t.Name] = scoring.ScoreRecorded(t.Results, j, in.Scorer, nil).Primary
	}
	return out
}

// orderOf is the trials by score, best first (ties by name).
func orderOf(trials []decision.Trial, s map[string]float64) []string {
	out := make([]string, len(trials))
	for i, t := range trials {
		out[i] = t.Name
	}
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Or(cmp.Compare(s[b], s[a]), cmp.Compare(a, b)) })
	return out
}

// view is the order under scores s, compared with the reference's top.
func (r *Report) view(name string, s map[string]float64, top []string, trials []decision.Trial) View {
	order := orderOf(trials, s)
	v := View{Name: name, Leader: order[0], Survives: order[0] == r.Winner, Top: order[:min(len(top), len(order))], scores: s}
	if name == "reference" {
		v.Tau = 1
		return v
	}
	x, y := make([]float64, len(top)), make([]float64, len(top))
	refScores := r.Reference.scores
	for i, t := range top {
		x[i], y[i] = refScores[t], s[t]
	}
	if tau := stat.Kendall(x, y, nil); !math.IsNaN(tau) {
		v.Tau = round(tau)
	}
	return v
}

// resample draws each label's grade anew: kept with the label's
// confidence (UnknownConfidence when it has none), else another grade of
// 0..maxGrade, uniformly.
func resample(ls []labels.Label, maxGrade int, rng *rand.Rand) []labels.Label {
	out := make([]labels.Label, len(ls))
	for i, l := range ls {
		c := l.Confidence
		if c == 0 {
			c = UnknownConfidence
		}
		if rng.Float64() >= c {
			g := rng.IntN(maxGrade) // one of the maxGrade other grades
			if g >= l.Grade {
				g++
			}
			l.Grade = min(g, maxGrade)
		}
		out[i] = l
	}
	return out
}

func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// DependsOn says, when the winner is not robust, under which judges
// another trial leads and in how many resamples the winner survives ("":
// robust).
func (r *Report) DependsOn() string {
	if r.Robust {
		return ""
	}
	var parts []string
	for _, v := range r.Judges {
		if !v.Survives {
			parts = append(parts, fmt.Sprintf("under %s %q leads", v.Name, v.Leader))
		}
	}
	if r.Resamples > 0 && float64(r.Survived) < MinSurvival*float64(r.Resamples) {
		parts = append(parts, fmt.Sprintf("it leads in %d of %d label resamples", r.Survived, r.Resamples))
	}
	return strings.Join(parts, "; ")
}

// WriteText writes the report: one line per judge, the resamples, and
// whether the winner is robust.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "winner under every label: %q\n", r.Winner)
	for _, v := range r.Judges {
		mark := "leads"
		if !v.Survives {
			mark = fmt.Sprintf("does not lead: %q does", v.Leader)
		}
		fmt.Fprintf(&b, "  %s (%d labels): the winner %s; Kendall tau of the top %d %.4f\n", v.Name, v.Labels, mark, len(r.Reference.Top), v.Tau)
	}
	if r.Resamples > 0 {
		fmt.Fprintf(&b, "  %d label resamples by confidence (seed %d): the winner leads in %d; mean Kendall tau of the top %d %.4f\n",
			r.Resamples, r.Seed, r.Survived, len(r.Reference.Top), r.MeanTau)
	}
	if r.Robust {
		b.WriteString("robust: the winner does not depend on the judge\n")
	} else {
		fmt.Fprintf(&b, "not robust: the winner depends on the judge (%s)\n", r.DependsOn())
	}
	_, err := io.WriteString(w, b.String())
	return err
}
