package backend

import (
	"context"
	"errors"
	"io"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

// Factory is one backend kind, prepared from plain options before any run
// directory exists: Check finds a bad trial before anything starts,
// Describe is the exact config a trial runs on (for its record), Open
// builds the backend with its files in dir.
type Factory interface {
	// Check returns nil when params give a config the backend accepts.
	Check(params map[string]any) error
	// Describe returns the exact config params run on, or why it cannot
	// be made ("render error: ...").
	Describe(params map[string]any) string
	// Open builds the backend with its files (config, logs) in dir, which
	// it creates; log receives what the tuner says about the backend.
	Open(dir string, log io.Writer) (Backend, error)
}

// Replicator is a Factory that can run replicas side by side, each its own
// service with its own files (the embedded engine: its own tune serve,
// port and index cache).
type Replicator interface {
	// Replica returns the factory of a replica keeping its files, caches
	// included, in dir.
	Replica(dir string) Factory
}

// Verifier is a Factory that can bring the service up on a production
// config file for a promotion: start (or restart) it on config, wait until
// it is ready, run check against it. scratch is a directory the caller
// removes afterwards.
type Verifier interface {
	Verify(config, scratch string, log io.Writer, check func(context.Context, Searcher) error) (func(context.Context) error, error)
}

// FusionResolver is a Factory whose trials can be replayed: it tells a
// trial's query-time settings exactly as the backend will apply them, so
// that the tuner fuses its candidate lists offline the same way. Fusion
// returns an error wrapping ErrNotReplayable for a trial whose ranking
// fusion settings do not tell (a rerank stage after fusion): the tuner
// runs it live.
type FusionResolver interface {
	Fusion(params map[string]any) (fusion.Settings, error)
}

// ErrNotReplayable marks a trial whose configuration ranks by more than
// its fusion settings (FusionResolver), so that it must run live.
var ErrNotReplayable = errors.New("not replayable")

// Fingerprinter is a Factory that can tell trials which build the same
// index and answer every query alike: the tuner runs the first of them and
// reuses its results for the others (runs.TrialRecord.ReusedFrom).
type Fingerprinter interface {
	// Fingerprint returns a key of params' effective configuration
	// (defaults applied) in which the index-time settings count only by
	// what they build (for the embedded engine: a hash of the chunks it
	// would index). Equal keys must mean equal results.
	Fingerprint(params map[string]any) (string, error)
}

// Restarter is implemented by backends that can tell whether the applied
// configuration differs from the running one, so an unchanged config is not
// restarted.
type Restarter interface {
	NeedsRestart() bool
}
