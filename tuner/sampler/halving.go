package sampler

import (
	"errors"
	"sort"

	"github.com/c-bata/goptuna"
)

// halving is successive halving on goptuna's report API: a trial reports
// its partial score at rung r as intermediate value r; it is promoted when
// that score is among the best ⌊n/η⌋ of the n trials that reported rung r
// (the best one while fewer than η have), and pruned otherwise. Ties
// promote.
//
// goptuna's own successivehalving.Pruner assumes one report per trial: its
// current-rung lookup returns the last completed rung rather than the next,
// so a second report overwrites the first rung's value.
type halving struct{ eta int }

var _ goptuna.Pruner = (*halving)(nil)

// Prune implements goptuna.Pruner.
func (h *halving) Prune(study *goptuna.Study, trial goptuna.FrozenTrial) (bool, error) {
	rung, ok := trial.GetLatestStep()
	if !ok {
		return false, nil
	}
	value := trial.IntermediateValues[rung]
	all, err := study.GetTrials()
	if err != nil && !errors.Is(err, goptuna.ErrTrialsPartiallyDeleted) {
		return false, err
	}
	competing := []float64{value}
	for _, t := range all {
		if t.ID == trial.ID {
			continue
		}
		if v, ok := t.IntermediateValues[rung]; ok {
			competing = append(competing, v)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(competing)))
	k := max(len(competing)/h.eta, 1)
	return value < competing[k-1], nil
}
