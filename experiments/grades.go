package experiments

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Grade scales. Judgments are integers; the scale says how high they go and
// which grades the graded measures count:
//
//   - Max, the top grade: dataset.grades.max, else detected from the data
//     (DetectScale): 1 for binary judgments (every grade 0 or 1, no native
//     labels, as most BEIR and TREC collections), else the highest grade
//     but at least DefaultMaxGrade (3), so every set valid on the 0-3 scale
//     scores exactly as before and a 0-4 set needs no setting. A lone grade
//     above a gap (one 7 among 0-3 judgments) does not make a new scale: it
//     is warned about, naming its place, and read as the top grade.
//   - Relevant (trec_eval's -l, the binary measures' threshold): default 1.
//   - Strong (Strong_Precision, Strong_Success, MRR_Strong, Recall_Strong):
//     default ceil(2*Max/3), at least Relevant: 2 on 0-3, 3 on 0-4.
//   - Exact (Exact_Precision, Exact_Success, MRR_Exact, Recall_Exact):
//     default Max.
//
// A map (dataset.grades.map: {1: 4, 2: 3, 3: 2, 4: 1}) rewrites every
// integer grade of the data when it is loaded, before anything else sees it:
// for scales where 1 is best. With a map, a grade it does not list is an
// error. A negative grade (after the map) reads as 0: judged, not relevant,
// as trec_eval reads it. The labels of the native format follow the scale:
// high is Exact, partial Strong, weak Relevant, irrelevant 0.

// Bounds of the grade scale settings.
const (
	// DefaultMaxGrade is the top grade when neither the settings nor the
	// data go higher: the 0-3 scale of high, partial, weak, irrelevant.
	DefaultMaxGrade = GradeHigh
	// MaxSupportedGrade is the highest grade accepted anywhere (ERR's
	// 2^grade must stay finite and meaningful).
	MaxSupportedGrade = 100
)

// GradeScale is the dataset.grades section of the settings; every field is
// optional.
type GradeScale struct {
	// Max is the top grade, 1-100.
	Max *int `mapstructure:"max"`
	// Map rewrites grades as they are loaded (keys: grades in the data,
	// values: grades 0-100 on the scale used, at most Max).
	Map map[int]int `mapstructure:"map"`
	// Relevant, Strong and Exact are thresholds, 1 <= relevant <= strong
	// <= exact <= max.
	Relevant *int `mapstructure:"relevant"`
	Strong   *int `mapstructure:"strong"`
	Exact    *int `mapstructure:"exact"`
}

// Scale is a resolved grade scale: the one a golden set was loaded with.
// It is recorded in the run snapshot.
type Scale struct {
	Max      int         `json:"max"`
	Relevant int         `json:"relevant"`
	Strong   int         `json:"strong"`
	Exact    int         `json:"exact"`
	Map      map[int]int `json:"map,omitempty"`
}

// DefaultScale is the 0-3 scale: relevant 1, strong 2, exact 3.
func DefaultScale() Scale {
	s, _ := GradeScale{}.resolve(DefaultMaxGrade)
	return s
}

// Binary reports whether s is the binary scale: judged relevant (1) or
// not (0).
func (s Scale) Binary() bool { return s.Max == 1 }

// String describes s, e.g. "0-4 (relevant >= 1, strong >= 3, exact >= 4)",
// or "binary (0-1: relevant = 1)".
func (s Scale) String() string {
	out := fmt.Sprintf("0-%d (relevant >= %d, strong >= %d, exact >= %d)", s.Max, s.Relevant, s.Strong, s.Exact)
	if s.Binary() {
		out = "binary (0-1: relevant = 1)"
	}
	if len(s.Map) > 0 {
		out += ", mapped " + mapString(s.Map)
	}
	return out
}

func mapString(m map[int]int) string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d->%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

// validate reports settings no scale can have, fields named under prefix
// (dataset.grades).
func (g GradeScale) validate(prefix string, l *problemList) {
	field := func(name string) string { return join(prefix, name) }
	top := MaxSupportedGrade
	if g.Max != nil {
		if *g.Max < 1 || *g.Max > MaxSupportedGrade {
			l.errorf("", field("max"), "must be between 1 and %d (got %d)", MaxSupportedGrade, *g.Max)
		} else {
			top = *g.Max
		}
	}
	keys := make([]int, 0, len(g.Map))
	for k := range g.Map {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if v := g.Map[k]; v < 0 || v > top {
			l.errorf("", field("map")+"."+strconv.Itoa(k), "must map to a grade between 0 and %d (got %d)", top, v)
		}
	}
	prev, prevName := 1, ""
	for _, t := range []struct {
		name string
		v    *int
	}{{"relevant", g.Relevant}, {"strong", g.Strong}, {"exact", g.Exact}} {
		if t.v == nil {
			continue
		}
		switch {
		case *t.v < 1 || *t.v > top:
			l.errorf("", field(t.name), "must be between 1 and %d (got %d)", top, *t.v)
		case *t.v < prev:
			l.errorf("", field(t.name), "must be >= %s (%d): thresholds need relevant <= strong <= exact (got %d)", prevName, prev, *t.v)
		default:
			prev, prevName = *t.v, t.name
		}
	}
}

// Validate reports every problem of g at once, fields named dataset.grades.*.
func (g GradeScale) Validate() error {
	l := &problemList{}
	g.validate("dataset.grades", l)
	return l.err()
}

// resolve fills the unset fields of g for data whose detected top grade
// (after the map) is top: 1 for a binary set, else at least
// DefaultMaxGrade.
func (g GradeScale) resolve(top int) (Scale, error) {
	s := Scale{Max: top}
	if g.Max != nil {
		s.Max = *g.Max
	}
	s.Relevant = 1
	if g.Relevant != nil {
		s.Relevant = *g.Relevant
	}
	s.Strong = max((2*s.Max+2)/3, s.Relevant)
	if g.Strong != nil {
		s.Strong = *g.Strong
	}
	s.Exact = max(s.Max, s.Strong)
	if g.Exact != nil {
		s.Exact = *g.Exact
	}
	if len(g.Map) > 0 {
		s.Map = g.Map
	}
	if !(1 <= s.Relevant && s.Relevant <= s.Strong && s.Strong <= s.Exact && s.Exact <= s.Max) {
		return s, fmt.Errorf("dataset.grades: thresholds must satisfy 1 <= relevant <= strong <= exact <= max (got relevant %d, strong %d, exact %d, max %d)",
			s.Relevant, s.Strong, s.Exact, s.Max)
	}
	return s, nil
}

// applyScale maps every grade of gs, checks it against the scale and turns
// labels into grades of the scale, then records the scale in gs.Scale.
func applyScale(gs *GoldenSet, g GradeScale, l *problemList) {
	before := len(l.errs)
	dataMax := 0
	for qi := range gs.Queries {
		js := gs.Queries[qi].Judgments
		for ji := range js {
			j := &js[ji]
			if j.label != "" {
				continue
			}
			pos, field := j.gradePos, j.gradeField
			if pos == "" {
				pos = j.Pos
			}
			if g.Map != nil {
				v, ok := g.Map[j.Grade]
				if !ok {
					l.errorf(pos, field, "grade %d is not in dataset.grades.map (which maps %s)", j.Grade, mapString(g.Map))
					continue
				}
				j.Grade = v
			}
			j.Grade = max(j.Grade, 0)
			switch {
			case j.Grade > MaxSupportedGrade:
				l.errorf(pos, field, "grade out of range: must be at most %d (got %d)", MaxSupportedGrade, j.Grade)
			case g.Max != nil && j.Grade > *g.Max:
				l.errorf(pos, field, "grade out of range: dataset.grades.max is %d (got %d)", *g.Max, j.Grade)
			}
			dataMax = max(dataMax, j.Grade)
		}
	}
	if len(l.errs) > before {
		return
	}
	top := max(dataMax, DefaultMaxGrade)
	if g.Max != nil {
		top = *g.Max
	} else {
		top = detectTop(gs, l)
	}
	s, err := g.resolve(top)
	if err != nil {
		l.errorf(gs.Source, "", "%v", err)
		return
	}
	for qi := range gs.Queries {
		js := gs.Queries[qi].Judgments
		for ji := range js {
			if js[ji].label != "" {
				js[ji].Grade = s.labelGrade(js[ji].label)
			}
		}
	}
	gs.Scale = s
}

// labelGrade is the grade of a native relevance label on s.
func (s Scale) labelGrade(label string) int {
	switch label {
	case "high":
		return s.Exact
	case "partial":
		return s.Strong
	case "weak":
		return s.Relevant
	}
	return GradeIrrelevant
}

// Lone grades: a grade above a gap in the scale carried by at most
// loneMax judgments (and at most 1% of them) is read as a typo, not as a
// new scale, in a set of at least loneMinJudged judgments.
const (
	loneMax       = 10
	loneMinJudged = 10
)

// detectTop is the top grade of gs's data (grades mapped, not yet
// labelled): 1 for a binary set (grades 0 and 1, at least one judgment,
// no native labels), else
// the highest grade, at least DefaultMaxGrade. Lone grades above a gap
// (see loneMax) are warned about on l, each naming its place, and read as
// the top grade of the others.
func detectTop(gs *GoldenSet, l *problemList) int {
	count := map[int]int{}
	total, labels := 0, false
	for _, q := range gs.Queries {
		for _, j := range q.Judgments {
			if j.label != "" {
				labels = true
				continue
			}
			count[j.Grade]++
			total++
		}
	}
	top := 0
	for g := range count {
		top = max(top, g)
	}
	if lone := loneFrom(count, total); lone > 0 {
		top = 0
		for g := range count {
			if g < lone {
				top = max(top, g)
			}
		}
		if top > 1 || labels {
			top = max(top, DefaultMaxGrade)
		}
		top = max(top, 1)
		warnLone(gs, lone, top, total, l)
		return top
	}
	if top <= 1 && !labels && total > 0 {
		return 1
	}
	return max(top, DefaultMaxGrade)
}

// loneFrom is the lowest lone grade of a set whose judgments count by
// grade (0: none): a grade g >= 2 such that at most loneMax judgments, and
// at most 1% of them, are g or above, and g sits above a gap — g-1 is no
// judgment's grade, or the grades below g are only 0 and 1 (a binary set).
func loneFrom(count map[int]int, total int) int {
	if total < loneMinJudged {
		return 0
	}
	limit := min(loneMax, max(2, total/100))
	var grades []int
	for g := range count {
		if g >= 1 {
			grades = append(grades, g)
		}
	}
	slices.Sort(grades)
	for i, g := range grades {
		if g < 2 {
			continue
		}
		above := 0
		for _, h := range grades[i:] {
			above += count[h]
		}
		if above > limit {
			continue
		}
		binaryBelow := true
		for _, h := range grades[:i] {
			binaryBelow = binaryBelow && h == 1
		}
		if count[g-1] == 0 || binaryBelow {
			return g
		}
	}
	return 0
}

// warnLone warns, on l, about every judgment of gs graded lone or above
// and reads it as top.
func warnLone(gs *GoldenSet, lone, top, total int, l *problemList) {
	others := "0-" + strconv.Itoa(top)
	if top == 1 {
		others = "binary: 0 or 1"
	}
	for qi := range gs.Queries {
		js := gs.Queries[qi].Judgments
		for ji := range js {
			j := &js[ji]
			if j.label != "" || j.Grade < lone {
				continue
			}
			pos, field := j.gradePos, j.gradeField
			if pos == "" {
				pos = j.Pos
			}
			l.warnf(pos, field, "grade %d is above the scale the other judgments use (%s, %d judgments): read as %d; set dataset.grades.max: %d if the scale goes that high",
				j.Grade, others, total, top, j.Grade)
			j.Grade = top
		}
	}
}
