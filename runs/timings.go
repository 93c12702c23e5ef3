package runs

// Timings says where a sweep's wall time went. It lives in the manifest,
// the only file of a run with timings, so leaderboard.json stays
// byte-identical across repeats.
type Timings struct {
	// WallSeconds is the sweep command's wall time, from reading the
	// settings to writing the leaderboard.
	WallSeconds float64 `json:"wall_seconds"`
	// StartStopSeconds is time in the backend's Restart, Ready (settle
	// included) and Close: stopping and starting the service.
	StartStopSeconds float64 `json:"start_stop_seconds"`
	// SearchSeconds is the time during which at least one search request
	// was in flight.
	SearchSeconds float64 `json:"search_seconds"`
	// ApplySeconds is time in the backend's Apply (rendering and writing
	// configs); it counts as tuner overhead.
	ApplySeconds float64 `json:"apply_seconds"`
	// OverheadSeconds is the rest: wall time outside backend start/stop and
	// search requests. OverheadShare is its share of WallSeconds.
	OverheadSeconds float64 `json:"overhead_seconds"`
	OverheadShare   float64 `json:"overhead_share"`
	// RecordSeconds is the part of the overhead spent waiting for trial
	// records to be durable (fsync): a live trial's record is written in
	// the background while the next trial applies its config and restarts
	// the backend, and waited for before that trial is committed.
	RecordSeconds float64 `json:"record_seconds"`
	// RecordOverlappedSeconds is the time records were written in the
	// background beyond RecordSeconds: it overlapped the next trial's
	// work and is no part of the overhead.
	RecordOverlappedSeconds float64 `json:"record_overlapped_seconds,omitempty"`
	// AnalysisSeconds is the part of the overhead spent after the last
	// trial: the statistics step, the leaderboard files and the report. It
	// does not grow with the trials' restarts and searches.
	AnalysisSeconds float64 `json:"analysis_seconds"`
}
