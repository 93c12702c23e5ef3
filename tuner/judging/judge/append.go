package judge

import (
	"context"
	"errors"
	"fmt"

	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// ErrBudget is wrapped by a judge whose budget would be exceeded by its
// next call: judging stops there, and the labels judged so far are
// returned.
var ErrBudget = errors.New("judging budget spent")

// Todo returns the pairs j has not labelled yet in st (the dataset's
// latest labels); every pair when st is nil (no store yet).
func Todo(ctx context.Context, st *labels.Store, dataset string, pairs []Pair, j Judge) ([]Pair, error) {
	var latest []labels.Label
	if st != nil {
		var err error
		if latest, err = st.Latest(ctx, dataset); err != nil {
			return nil, err
		}
	}
	return Unjudged(pairs, latest, j.Name()), nil
}

// Appended is what JudgeInto judged and appended.
type Appended struct {
	Labels []labels.Label
	// Spent, when not nil, wraps ErrBudget: the budget ran out and the
	// pairs without a label are left for another run.
	Spent error
}

// JudgeInto judges todo with j and appends the labels to st. When the
// budget runs out the labels judged so far are appended (Spent says so);
// any other failure appends nothing.
func JudgeInto(ctx context.Context, j Judge, st *labels.Store, todo []Pair) (Appended, error) {
	ls, err := j.Judge(ctx, todo)
	a := Appended{Labels: ls}
	if errors.Is(err, ErrBudget) {
		a.Spent = err
	} else if err != nil {
		return Appended{}, fmt.Errorf("%w\nnothing appended to %s; the answers received are cached, so a re-run re-uses them", err, st.Location.Redacted)
	}
	if err := st.Append(ctx, ls); err != nil {
		return Appended{}, err
	}
	return a, nil
}
