package judge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// Votes an Ensemble combines its members' grades by.
const (
	// VoteMajority takes the grade most members gave; a tie goes to the
	// lower grade.
	VoteMajority = "majority"
	// VoteMean takes the mean of the members' grades rounded to the
	// nearest grade, a half down (2.5 is 2).
	VoteMean = "mean"
)

// Combine is the grade vote makes of grades (the members that graded a
// pair) and its confidence: the share of all members (members, graders or
// not) that gave that grade. grades must not be empty.
func Combine(grades []int, vote string, members int) (grade int, confidence float64) {
	switch vote {
	case VoteMean:
		sum := 0
		for _, g := range grades {
			sum += g
		}
		n := len(grades)
		grade = int(math.Ceil(float64(2*sum-n) / float64(2*n))) // half down
	default:
		count := map[int]int{}
		for _, g := range grades {
			count[g]++
		}
		grade = grades[0]
		for g, c := range count {
			if c > count[grade] || c == count[grade] && g < grade {
				grade = g
			}
		}
	}
	same := 0
	for _, g := range grades {
		if g == grade {
			same++
		}
	}
	return grade, float64(same) / float64(max(members, len(grades)))
}

// Ensemble is a judge whose label is its members' vote: each member
// judges the pairs in turn, and a pair any member graded gets the grade
// Combine makes of their grades, with its confidence.
type Ensemble struct {
	dataset  string
	members  []Judge
	vote     string
	maxGrade int
	ratings  [][]Rating // per member: the ensemble's grade (Ref) and the member's (Got)
}

var _ Judge = (*Ensemble)(nil)

// NewEnsemble returns the ensemble of members (at least two, of distinct
// names) voting by vote (VoteMajority or VoteMean) on grades 0..maxGrade;
// its labels are of dataset.
func NewEnsemble(dataset string, members []Judge, vote string, maxGrade int) (*Ensemble, error) {
	if vote != VoteMajority && vote != VoteMean {
		return nil, fmt.Errorf("ensemble vote %q: want %s or %s", vote, VoteMajority, VoteMean)
	}
	if len(members) < 2 {
		return nil, fmt.Errorf("an ensemble needs at least two members (got %d)", len(members))
	}
	seen := map[string]int{}
	for i, m := range members {
		if j, ok := seen[m.Name()]; ok {
			return nil, fmt.Errorf("ensemble members %d and %d are the same judge %s (give one another model or prompt)", j+1, i+1, m.Name())
		}
		seen[m.Name()] = i
	}
	return &Ensemble{dataset: dataset, members: members, vote: vote, maxGrade: maxGrade, ratings: make([][]Rating, len(members))}, nil
}

// Name returns "ensemble(A,B,...)" for a majority vote and
// "ensemble-mean(A,B,...)" for a mean, A, B... the members' names.
func (e *Ensemble) Name() string {
	names := make([]string, len(e.members))
	for i, m := range e.members {
		names[i] = m.Name()
	}
	prefix := "ensemble"
	if e.vote == VoteMean {
		prefix += "-" + VoteMean
	}
	return prefix + "(" + strings.Join(names, ",") + ")"
}

// Vote returns how the ensemble combines grades.
func (e *Ensemble) Vote() string { return e.vote }

// Judge asks every member about pairs in turn and labels each pair some
// member graded with their vote (source llm when a member is an LLM,
// else file; the rationale lists the members' grades). A member's
// failure fails the ensemble; when a member's budget runs out, only the
// pairs it judged are asked of the members after it and labelled, and
// the error wraps ErrBudget.
func (e *Ensemble) Judge(ctx context.Context, pairs []Pair) ([]labels.Label, error) {
	votes := make([]map[[2]string]int, len(e.members))
	source := labels.SourceFile
	var spent error
	todo := pairs
	for i, m := range e.members {
		ls, err := m.Judge(ctx, todo)
		if err != nil && !errors.Is(err, ErrBudget) {
			return nil, fmt.Errorf("ensemble member %s: %w", m.Name(), err)
		}
		votes[i] = map[[2]string]int{}
		for _, l := range ls {
			votes[i][[2]string{l.Query, l.Doc}] = l.Grade
			if l.Source == labels.SourceLLM {
				source = labels.SourceLLM
			}
		}
		if err != nil {
			spent = fmt.Errorf("ensemble member %s: %w", m.Name(), err)
			var kept []Pair
			for _, p := range todo {
				if _, ok := votes[i][[2]string{p.Query, p.Doc}]; ok {
					kept = append(kept, p)
				}
			}
			todo = kept
		}
	}
	now := time.Now().UTC()
	var out []labels.Label
	for _, p := range todo {
		k := [2]string{p.Query, p.Doc}
		var grades []int
		var why []string
		for _, v := range votes {
			if g, ok := v[k]; ok {
				grades = append(grades, g)
			}
		}
		if len(grades) == 0 {
			continue
		}
		g, conf := Combine(grades, e.vote, len(e.members))
		for i, m := range e.members {
			if mg, ok := votes[i][k]; ok {
				why = append(why, fmt.Sprintf("%s=%d", m.Name(), mg))
				e.ratings[i] = append(e.ratings[i], Rating{Query: p.Query, Doc: p.Doc, Ref: g, Got: mg})
			}
		}
		out = append(out, labels.Label{Dataset: e.dataset, Query: p.Query, Doc: p.Doc, Grade: g, Judge: e.Name(),
			Source: source, Time: now, Rationale: e.vote + " of " + strings.Join(why, " "), Confidence: conf})
	}
	return out, spent
}

// Agreements returns each member's agreement with the ensemble over the
// pairs it labelled so far (the ensemble's grade is the reference).
func (e *Ensemble) Agreements() []Report {
	out := make([]Report, len(e.members))
	for i, m := range e.members {
		out[i] = NewReport(m.Name(), e.ratings[i], e.maxGrade, false)
	}
	return out
}
