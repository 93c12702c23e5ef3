package judge

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// Rating is one pair graded by a reference (gold or a person) and by the
// judge under test.
type Rating struct {
	Query, Doc, Category string
	Ref, Got             int
}

// Agreement compares two graders over the same pairs.
type Agreement struct {
	// N is the number of pairs both graded.
	N int `json:"pairs"`
	// Matrix[i][j] counts the pairs the reference graded i and the judge j
	// (grades 0..len(Matrix)-1).
	Matrix [][]int `json:"matrix"`
	// Exact is the share of pairs given the same grade.
	Exact float64 `json:"exact"`
	// KappaQuadratic and KappaLinear are Cohen's kappa with quadratic
	// weights (1 - (i-j)²/(k-1)²; the headline: a grade off by two costs
	// four times one off by one) and linear weights (1 - |i-j|/(k-1)).
	// NaN when undefined: fewer than two grades, or chance agreement 1.
	KappaQuadratic float64 `json:"kappa_quadratic"`
	KappaLinear    float64 `json:"kappa_linear"`
}

// MarshalJSON writes the statistics, null where undefined (NaN).
func (a Agreement) MarshalJSON() ([]byte, error) {
	f := func(v float64) *float64 {
		if math.IsNaN(v) {
			return nil
		}
		return &v
	}
	return json.Marshal(struct {
		N              int      `json:"pairs"`
		Matrix         [][]int  `json:"matrix"`
		Exact          *float64 `json:"exact"`
		KappaQuadratic *float64 `json:"kappa_quadratic"`
		KappaLinear    *float64 `json:"kappa_linear"`
	}{a.N, a.Matrix, f(a.Exact), f(a.KappaQuadratic), f(a.KappaLinear)})
}

// Agree computes the agreement of ratings on grades 0..maxGrade (grades
// above maxGrade widen the scale; below 0 count as 0).
func Agree(ratings []Rating, maxGrade int) Agreement {
	k := max(maxGrade, 0) + 1
	for _, r := range ratings {
		k = max(k, r.Ref+1, r.Got+1)
	}
	a := Agreement{N: len(ratings), Matrix: make([][]int, k)}
	for i := range a.Matrix {
		a.Matrix[i] = make([]int, k)
	}
	same := 0
	for _, r := range ratings {
		i, j := max(r.Ref, 0), max(r.Got, 0)
		a.Matrix[i][j]++
		if i == j {
			same++
		}
	}
	if a.N == 0 {
		a.Exact, a.KappaLinear, a.KappaQuadratic = math.NaN(), math.NaN(), math.NaN()
		return a
	}
	a.Exact = float64(same) / float64(a.N)
	a.KappaLinear = kappa(a.Matrix, func(d float64) float64 { return d })
	a.KappaQuadratic = kappa(a.Matrix, func(d float64) float64 { return d * d })
	return a
}

// kappa is weighted Cohen's kappa of the confusion matrix m with
// disagreement weight dist(|i-j|/(k-1)): 1 - observed/expected
// disagreement.
func kappa(m [][]int, dist func(float64) float64) float64 {
	k := len(m)
	if k < 2 {
		return math.NaN()
	}
	n := 0.0
	rows, cols := make([]float64, k), make([]float64, k)
	for i := range m {
		for j, c := range m[i] {
			rows[i] += float64(c)
			cols[j] += float64(c)
			n += float64(c)
		}
	}
	var observed, expected float64
	for i := range m {
		for j := range m[i] {
			w := dist(math.Abs(float64(i-j)) / float64(k-1))
			observed += w * float64(m[i][j]) / n
			expected += w * rows[i] * cols[j] / (n * n)
		}
	}
	if expected == 0 {
		return math.NaN()
	}
	return 1 - observed/expected
}

// Ratings pairs the reference grades ref (query -> doc -> grade: the golden
// set's judgments merged with people's labels) with the labels of judge
// among ls, for every pair both graded, ordered by query and doc;
// categories maps query ids to their category ("" when absent).
func Ratings(ref map[string]map[string]int, ls []labels.Label, judge string, categories map[string]string) []Rating {
	var out []Rating
	for _, l := range ls {
		if l.Judge != judge {
			continue
		}
		g, ok := ref[l.Query][l.Doc]
		if !ok {
			continue
		}
		out = append(out, Rating{Query: l.Query, Doc: l.Doc, Category: categories[l.Query], Ref: g, Got: l.Grade})
	}
	slices.SortFunc(out, func(a, b Rating) int { return cmp.Or(cmp.Compare(a.Query, b.Query), cmp.Compare(a.Doc, b.Doc)) })
	return out
}

// Report is the agreement of one judge with the reference, overall and per
// category.
type Report struct {
	Judge      string               `json:"judge"`
	Overall    Agreement            `json:"overall"`
	ByCategory map[string]Agreement `json:"by_category,omitempty"`
}

// NewReport computes a Report from ratings; byCategory adds one agreement
// per category.
func NewReport(judge string, ratings []Rating, maxGrade int, byCategory bool) Report {
	r := Report{Judge: judge, Overall: Agree(ratings, maxGrade)}
	if byCategory {
		groups := map[string][]Rating{}
		for _, x := range ratings {
			groups[x.Category] = append(groups[x.Category], x)
		}
		r.ByCategory = map[string]Agreement{}
		for c, rs := range groups {
			r.ByCategory[c] = Agree(rs, len(r.Overall.Matrix)-1)
		}
	}
	return r
}

// WriteText prints r: a headline with quadratic-weighted kappa, the
// confusion matrix (rows: reference grade, columns: the judge's) and the
// per-category table.
func (r Report) WriteText(w io.Writer, reference string) error {
	var b strings.Builder
	o := r.Overall
	fmt.Fprintf(&b, "%s vs %s: %d pairs, weighted kappa %s (quadratic; linear %s), exact agreement %s\n",
		r.Judge, reference, o.N, num(o.KappaQuadratic), num(o.KappaLinear), num(o.Exact))
	if o.N > 0 {
		fmt.Fprintf(&b, "\n%-10s", "ref\\judge")
		for j := range o.Matrix {
			fmt.Fprintf(&b, " %6d", j)
		}
		b.WriteString("\n")
		for i, row := range o.Matrix {
			fmt.Fprintf(&b, "%-10d", i)
			for _, c := range row {
				fmt.Fprintf(&b, " %6d", c)
			}
			b.WriteString("\n")
		}
	}
	if len(r.ByCategory) > 0 {
		fmt.Fprintf(&b, "\n%-20s %6s %8s %8s %6s\n", "category", "pairs", "kappa_q", "kappa_l", "exact")
		for _, c := range slices.Sorted(maps.Keys(r.ByCategory)) {
			a := r.ByCategory[c]
			name := c
			if name == "" {
				name = "(none)"
			}
			fmt.Fprintf(&b, "%-20s %6d %8s %8s %6s\n", name, a.N, num(a.KappaQuadratic), num(a.KappaLinear), num(a.Exact))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// num formats a statistic with three decimals, "n/a" for NaN.
func num(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	if math.Abs(v) < 0.0005 {
		v = 0 // no "-0.000"
	}
	return fmt.Sprintf("%.3f", v)
}
