package runs

// Verdict answers, in one line, what a run says to ship and how sure it
// is: ship a trial (it beats the baseline by the decision rule), keep the
// baseline (no trial does: why, and what would settle it), or run a single
// retriever (the best configuration is one retriever alone, or gives a
// retriever a weight so small that it is effectively off). It is recorded
// in leaderboard.json and printed last by the leaderboard, the sweep, the
// report and tune compare.
type Verdict struct {
	// Kind is VerdictShip, VerdictKeep, VerdictSingle or VerdictNone.
	Kind string `json:"kind"`
	// Trial is the configuration to run: the trial to ship (or the
	// single-retriever trial), or the baseline to keep.
	Trial string `json:"trial,omitempty"`
	// Against is the reference the decision compares with (the
	// baseline); Best the best trial when the verdict keeps the
	// reference.
	Against string `json:"against,omitempty"`
	Best    string `json:"best,omitempty"`
	// Retriever names the retriever a single-retriever verdict keeps.
	Retriever string `json:"retriever,omitempty"`
	// Confirmed is true when the decision is the held-out confirmation
	// (select on dev, confirm on held-out queries).
	Confirmed bool `json:"confirmed,omitempty"`
	// QueriesNeeded is how many judged queries would detect the best
	// trial's gain with 80% power under the run's correction, when the
	// verdict keeps the reference for lack of significance (0: unknown).
	QueriesNeeded int `json:"queries_needed,omitempty"`
	// Line is the verdict in words.
	Line string `json:"line"`
}

// Verdict kinds.
const (
	VerdictShip   = "ship"
	VerdictKeep   = "keep"
	VerdictSingle = "single-retriever"
	VerdictNone   = "none"
)
