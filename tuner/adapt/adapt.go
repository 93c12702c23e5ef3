package adapt

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

// Defaults and ranges of Options.
const (
	DefaultFolds    = 5
	MinFolds        = 2
	MaxFolds        = 20
	DefaultLevels   = 2
	MaxLevels       = fusion.MaxPolicyLevels
	DefaultMinLeaf  = 30
	MinMinLeaf      = 1
	DefaultSeed     = 1
	DefaultAlpha    = 0.05
	MinQueriesFolds = 2 // every fold holds at least this many queries
)

// Options tune the learner and its evaluation.
type Options struct {
	// Folds is k of the k-fold cross-validation: MinFolds..MaxFolds, and at
	// most queries / MinQueriesFolds.
	Folds int
	// Seed shuffles the queries into folds.
	Seed int64
	// Levels bounds the splits on a root-to-leaf path: 0..MaxLevels (0: one
	// global arm, the baseline the tree must beat).
	Levels int
	// MinLeaf is the fewest training queries on each side of a split:
	// MinMinLeaf or more.
	MinLeaf int
	// Features are the features a split may read (nil: every feature of
	// the matrix).
	Features []string
}

// DefaultOptions returns 5 folds, seed 1, 2 levels and leaves of at least
// 30 queries.
func DefaultOptions() Options {
	return Options{Folds: DefaultFolds, Seed: DefaultSeed, Levels: DefaultLevels, MinLeaf: DefaultMinLeaf}
}

// Validate checks o against a matrix of n queries and names every field
// out of range.
func (o Options) Validate(n int) error {
	var probs []string
	if o.Folds < MinFolds || o.Folds > MaxFolds {
		probs = append(probs, fmt.Sprintf("folds: must be in [%d, %d] (got %d)", MinFolds, MaxFolds, o.Folds))
	} else if o.Folds*MinQueriesFolds > n {
		probs = append(probs, fmt.Sprintf("folds: %d folds need at least %d queries (got %d)", o.Folds, o.Folds*MinQueriesFolds, n))
	}
	if o.Levels < 0 || o.Levels > MaxLevels {
		probs = append(probs, fmt.Sprintf("levels: must be in [0, %d] (got %d)", MaxLevels, o.Levels))
	}
	if o.MinLeaf < MinMinLeaf {
		probs = append(probs, fmt.Sprintf("min-leaf: must be >= %d (got %d)", MinMinLeaf, o.MinLeaf))
	}
	if len(probs) > 0 {
		return fmt.Errorf("adapt: %s", join(probs))
	}
	return nil
}

func join(s []string) string {
	out := ""
	for i, p := range s {
		if i > 0 {
			out += "; "
		}
		out += p
	}
	return out
}

// Matrix is the trial × query matrix a policy is learned from.
type Matrix struct {
	// Arms are the candidate settings, in trial order.
	Arms []fusion.Settings
	// Names name the arms (their trials), indexed like Arms.
	Names []string
	// Queries are the query ids, indexed like Scores and Features.
	Queries []string
	// Scores[q][a] is query q's metric under arm a.
	Scores [][]float64
	// Features[q] are query q's pre-fusion features (fusion.QueryFeatures).
	Features []map[string]float64
}

// featureNames returns the features splits may read: o.Features, or every
// feature any query has, sorted.
func (m *Matrix) featureNames(o Options) []string {
	if o.Features != nil {
		return o.Features
	}
	seen := map[string]bool{}
	for _, f := range m.Features {
		for k := range f {
			seen[k] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// bestArm returns the arm with the highest total score over qs (ties: the
// lowest index) and that total.
func (m *Matrix) bestArm(qs []int) (int, float64) {
	best, bestSum := 0, math.Inf(-1)
	for a := range m.Arms {
		s := 0.0
		for _, q := range qs {
			s += m.Scores[q][a]
		}
		if s > bestSum+1e-12 {
			best, bestSum = a, s
		}
	}
	return best, bestSum
}

// Learn grows a tree on the training queries qs: a leaf takes the arm with
// the best total score of its queries; a node splits on the feature and
// threshold (a midpoint between two observed values) that raise the total
// most, when each side keeps o.MinLeaf queries and the gain is positive,
// up to o.Levels splits deep.
func (m *Matrix) Learn(qs []int, o Options) *fusion.PolicyNode {
	return m.grow(qs, m.featureNames(o), o, 0)
}

func (m *Matrix) grow(qs []int, feats []string, o Options, level int) *fusion.PolicyNode {
	arm, total := m.bestArm(qs)
	leaf := &fusion.PolicyNode{Arm: arm, Queries: len(qs)}
	if level >= o.Levels || len(qs) < 2*o.MinLeaf {
		return leaf
	}
	type split struct {
		feat      string
		threshold float64
		gain      float64
	}
	var best split
	A := len(m.Arms)
	sorted := append([]int(nil), qs...)
	left, right := make([]float64, A), make([]float64, A)
	for _, feat := range feats {
		sort.SliceStable(sorted, func(i, j int) bool {
			fi, fj := m.Features[sorted[i]][feat], m.Features[sorted[j]][feat]
			if fi != fj {
				return fi < fj
			}
			return sorted[i] < sorted[j]
		})
		clear(left)
		clear(right)
		for _, q := range sorted {
			for a := range A {
				right[a] += m.Scores[q][a]
			}
		}
		for i := 0; i < len(sorted)-1; i++ {
			q := sorted[i]
			for a := range A {
				left[a] += m.Scores[q][a]
				right[a] -= m.Scores[q][a]
			}
			v, next := m.Features[q][feat], m.Features[sorted[i+1]][feat]
			if v == next || i+1 < o.MinLeaf || len(sorted)-i-1 < o.MinLeaf {
				continue
			}
			gain := maxOf(left) + maxOf(right) - total
			if gain > best.gain+1e-9 {
				best = split{feat, v + (next-v)/2, gain}
			}
		}
	}
	if best.feat == "" {
		return leaf
	}
	var below, above []int
	for _, q := range qs {
		if m.Features[q][best.feat] < best.threshold {
			below = append(below, q)
		} else {
			above = append(above, q)
		}
	}
	return &fusion.PolicyNode{Feature: best.feat, Threshold: best.threshold, Queries: len(qs),
		Below: m.grow(below, feats, o, level+1), Above: m.grow(above, feats, o, level+1)}
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// HeldOut are per-query scores on held-out folds: each query scored by the
// global setting and the policy learned without its fold, and by its
// oracle arm.
type HeldOut struct {
	Queries []string  // query ids in matrix order
	Global  []float64 // the best global arm of the other folds
	Policy  []float64 // the tree learned on the other folds
	Oracle  []float64 // the best arm of the query itself
	// Fold[q] is the fold query q was held out in.
	Fold []int
}

// Folds assigns each of n queries to one of k folds: a seeded shuffle,
// then round robin, so folds differ in size by at most one.
func Folds(n, k int, seed int64) []int {
	perm := rand.New(rand.NewPCG(uint64(seed), 0x21ad)).Perm(n)
	fold := make([]int, n)
	for i, q := range perm {
		fold[q] = i % k
	}
	return fold
}

// CrossValidate scores every query on the fold it is held out in (see
// HeldOut). o must be valid for the matrix (Options.Validate).
func (m *Matrix) CrossValidate(o Options) HeldOut {
	n := len(m.Queries)
	h := HeldOut{Queries: m.Queries, Global: make([]float64, n), Policy: make([]float64, n), Oracle: make([]float64, n),
		Fold: Folds(n, o.Folds, o.Seed)}
	p := &fusion.Policy{Arms: m.Arms}
	for f := range o.Folds {
		var train, test []int
		for q := range n {
			if h.Fold[q] == f {
				test = append(test, q)
			} else {
				train = append(train, q)
			}
		}
		global, _ := m.bestArm(train)
		p.Tree = m.Learn(train, o)
		for _, q := range test {
			h.Global[q] = m.Scores[q][global]
			h.Policy[q] = m.Scores[q][p.Choose(m.Features[q])]
		}
	}
	for q := range n {
		h.Oracle[q] = maxOf(m.Scores[q])
	}
	return h
}

// Mean is the mean of v (0 for none).
func Mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
