package pass

import (
	"context"
	"io"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// Pass is one pass of the golden set's queries over a backend: every
// query searched and scored. Run makes it the pass of a configuration —
// apply it, restart the backend when it needs it (always when forced),
// wait until it is ready, then search — which is how every part of a run
// evaluates a configuration live: a trial, a replay's collection and
// verification, the pre-flight (Start alone), the held-out estimate, the
// latency measurements and the promotion's smoke check (Search alone).
type Pass struct {
	// Searcher is what the queries go to (Run sets it to its backend).
	Searcher backend.Searcher
	Queries  []scoring.Query
	Scorer   scoring.Scorer
	Eval     EvalOptions
	// Prefix names the pass's requests: Prefix/query id.
	Prefix string
	// Batch sends the queries in one batch where the backend takes one
	// (backend.BatchSearcher: no latency measured), per query otherwise;
	// Log says why a batch failed.
	Batch bool
	Log   io.Writer
	// Progress, when set, is told how many queries are done after each.
	Progress func(done int)
}

// Search searches and scores every query on p.Searcher as it stands.
func (p Pass) Search(ctx context.Context) (Batch, error) {
	if p.Batch {
		log := p.Log
		if log == nil {
			log = io.Discard
		}
		return evaluateBatch(ctx, p.Searcher, p.Queries, p.Scorer, p.Eval, p.Prefix, log, p.Progress)
	}
	return evaluate(ctx, p.Searcher, p.Queries, p.Scorer, p.Eval, p.Prefix, p.Progress)
}

// Run is the pass of configuration params on b: Start (a restart when
// b's config changed, always with force), then Search on b. restarted
// reports a restart (attempted); an error before the search returns an
// empty batch.
func (p Pass) Run(ctx context.Context, b backend.Backend, params map[string]any, force bool) (batch Batch, restarted bool, err error) {
	restarted, err = Start(ctx, b, params, force)
	if err != nil {
		return Batch{}, restarted, err
	}
	p.Searcher = b
	batch, err = p.Search(ctx)
	return batch, restarted, err
}

// Start applies params to b and, when b's config changed (always with
// force; always for a backend that cannot tell, see backend.Restarter),
// restarts it and waits until it is ready. restarted reports a restart
// (attempted).
func Start(ctx context.Context, b backend.Backend, params map[string]any, force bool) (restarted bool, err error) {
	if err := b.Apply(ctx, params); err != nil {
		return false, err
	}
	if r, ok := b.(backend.Restarter); !force && ok && !r.NeedsRestart() {
		return false, nil
	}
	if err := b.Restart(ctx); err != nil {
		return true, err
	}
	return true, b.Ready(ctx)
}
