package tuner

import (
	"github.com/fusiontune/fusiontune/experiments"
)

// Group is a set of trials sharing their index-time parameters: the index
// is built once for the group.
type Group struct {
	Key    string // experiments.Params.IndexKey of its trials
	Trials []experiments.TrialSpec
}

// Plan orders trials into groups by index-time parameters, so each index is
// built once and restarts only change query-time settings. Groups keep the
// order in which their first trial appears; trials keep their order within a
// group. The baseline, when present, is in the first group.
func Plan(trials []experiments.TrialSpec) []Group {
	var groups []Group
	pos := map[string]int{}
	for _, t := range trials {
		key := t.Params.IndexKey()
		i, ok := pos[key]
		if !ok {
			i = len(groups)
			pos[key] = i
			groups = append(groups, Group{Key: key})
		}
		groups[i].Trials = append(groups[i].Trials, t)
	}
	return groups
}

// Flatten lists the trials of groups in execution order.
func Flatten(groups []Group) []experiments.TrialSpec {
	var out []experiments.TrialSpec
	for _, g := range groups {
		out = append(out, g.Trials...)
	}
	return out
}
