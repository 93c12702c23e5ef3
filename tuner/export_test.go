package tuner

import (
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/replay"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// ProcessCPU exposes processCPU to the benchmarks.
var ProcessCPU = processCPU

// RungSubsets exposes rungSubsets to the external tests.
var RungSubsets = rungSubsets

// ReplayCore exposes the replay hot path (fuse one query's prepared
// lists under a trial's settings and score the ranking) to the external
// benchmark.
type ReplayCore struct{ rp *replay.Replayer }

// ReplayQuery is a query made ready for replay.
type ReplayQuery = replay.Query

// NewReplayCore returns a ReplayCore keeping k hits per query.
func NewReplayCore(sc scoring.Scorer, k int) *ReplayCore {
	return &ReplayCore{replay.NewReplayer(sc, k)}
}

// Prepare readies q and its lists.
func (c *ReplayCore) Prepare(q scoring.Query, pl *fusion.Prepared) *ReplayQuery {
	rq := c.rp.Prepare(q, pl)
	return &rq
}

// Score fuses and scores one query and returns the primary score.
func (c *ReplayCore) Score(rq *ReplayQuery, s fusion.Settings) float64 {
	_, p := c.rp.Score(rq, s)
	return p
}

// Records replays one trial over every query: the per-query records the
// sweep writes.
func (c *ReplayCore) Records(rqs []*ReplayQuery, s fusion.Settings) []runs.QueryResult {
	out := make([]runs.QueryResult, len(rqs))
	for i, rq := range rqs {
		out[i] = runs.QueryResult{QueryID: rq.Q.ID, Category: rq.Q.Category}
		c.rp.Record(&out[i], rq, s)
	}
	return out
}

// ScoreBoth scores one query the hot path's way and by sorting the fused
// ranking, and returns both metric vectors, primaries and routings.
func (c *ReplayCore) ScoreBoth(rq *ReplayQuery, s fusion.Settings) (fast, sorted []float64, fastP, sortedP float64, fastR, sortedR string) {
	v, fastP := c.rp.Score(rq, s)
	fast, fastR = append([]float64(nil), v...), c.rp.Routing()
	v, sortedP = c.rp.ScoreRanked(rq, s.Passage, c.rp.Rank(rq.Lists, s, c.rp.Cut(s.Passage, 0)))
	return fast, append([]float64(nil), v...), fastP, sortedP, fastR, c.rp.Routing()
}

// Derivations is how many replayed trials' per-query results were
// derived since the process started.
func Derivations() int64 { return replay.Derivations() }

// ReplayedFacts derives replayed trial t's facts as the precomputed
// statistics do, in one derivation: its per-query scores, result key and
// judged-only values (JudgedOnlyMetrics of sc) under judgments.
func ReplayedFacts(run *runs.Run, t runs.TrialRecord, judgments scoring.Judgments, sc scoring.Scorer) ([]runs.QueryResult, string, map[string]float64, error) {
	rf, err := replay.Of(run).Facts(t, judgments, sc, scoring.JudgedOnlyMetrics(sc.Metrics()))
	return rf.WithScores(), rf.Key, rf.Judged, err
}

// FactsDerived is how many replayed trials' statistics facts were derived
// from their collection (not made in their replay) since the process
// started.
func FactsDerived() int64 { return replay.FactsDerived() }
