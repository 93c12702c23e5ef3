package shadow

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/internal/querylog"
	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/internal/userfile"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// ReadLogs reads the comma-separated query logs of list, each with its
// rotated files (LOG.1, LOG.2 ...); skipBad skips (and counts) malformed
// lines. A missing log is the user's error (inputerr.Error).
func ReadLogs(list string, skipBad bool) (*querylog.Log, error) {
	var files []string
	for _, l := range strings.Split(list, ",") {
		found := querylog.Files(l)
		if len(found) == 0 {
			return nil, inputerr.Wrap(fmt.Errorf("shadow: --log %s: no such file", l))
		}
		files = append(files, found...)
	}
	log, err := querylog.Read(files, querylog.ReadOptions{SkipBad: skipBad})
	if err != nil {
		return nil, inputerr.Wrap(err)
	}
	return log, nil
}

// ResolveSide resolves a side's reference: "log" (what was served),
// "shadow" (the live shadow mode's logged answers), run:RUN[:TRIAL] (the
// trial's recorded engine config; openStore opens the runs directory) or
// an engine config file. A reference that names nothing is the user's
// error (inputerr.Error).
func ResolveSide(ref string, openStore func() (*runs.Store, error)) (Side, error) {
	switch ref {
	case "log":
		return Side{Name: "log", Log: true}, nil
	case "shadow":
		return Side{Name: "shadow (logged live)", Shadow: true}, nil
	}
	if rest, ok := strings.CutPrefix(ref, "run:"); ok {
		return runSide(ref, rest, openStore)
	}
	data, err := userfile.Read(ref, userfile.Default)
	if err != nil {
		return Side{}, inputerr.Wrap(fmt.Errorf("shadow: %w (want log, an engine config file or run:RUN[:TRIAL])", err))
	}
	abs, _ := filepath.Abs(ref)
	return Side{Name: ref, Config: data, File: ref, BaseDir: filepath.Dir(abs)}, nil
}

// runSide is the side of ref, run:RUN[:TRIAL] (rest is RUN[:TRIAL]).
func runSide(ref, rest string, openStore func() (*runs.Store, error)) (Side, error) {
	runRef, trialRef, _ := strings.Cut(rest, ":")
	store, err := openStore()
	if err != nil {
		return Side{}, err
	}
	run, err := store.Resolve(runRef)
	if err != nil {
		return Side{}, inputerr.Wrap(fmt.Errorf("shadow: %s: %w", ref, err))
	}
	lb, err := run.ReadLeaderboard()
	if err != nil {
		return Side{}, inputerr.Wrap(fmt.Errorf("shadow: %s: %w", ref, err))
	}
	e, err := lb.Pick(trialRef)
	if err != nil {
		return Side{}, inputerr.Wrap(fmt.Errorf("shadow: %s: %w", ref, err))
	}
	rec, err := run.Trial(e.Index)
	if err != nil {
		return Side{}, err
	}
	params := rec.Params
	if params == nil {
		params = map[string]any{}
	}
	return Side{Name: run.ID() + ":" + e.Name, Config: []byte(rec.BackendConfig), File: ref + " (its recorded engine config)", BaseDir: run.Dir, Params: params}, nil
}

// ReadJudgments reads the judgments of the harvested queries: the TREC
// qrels file qrels, or the effective labels of dataset in the label store
// at labelsURL (neither: none). An unreadable qrels file or store is the
// user's error (inputerr.Error).
func ReadJudgments(ctx context.Context, qrels, labelsURL, dataset string) (map[string]map[string]int, error) {
	switch {
	case qrels != "":
		q, err := trec.ReadQrelsFile(qrels)
		if err != nil {
			return nil, inputerr.Wrap(fmt.Errorf("shadow: --qrels: %w", err))
		}
		return q, nil
	case dataset != "":
		st, err := labels.Open(ctx, labelsURL)
		if err != nil {
			return nil, inputerr.Wrap(fmt.Errorf("shadow: labels: %w", err))
		}
		defer st.Close()
		ls, err := st.Latest(ctx, dataset)
		if err != nil {
			return nil, err
		}
		j, _ := labels.Effective(nil, ls)
		return j, nil
	}
	return nil, nil
}
