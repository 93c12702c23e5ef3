package tuner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner/pass"
)

// ErrPreflight is returned (as an input error) when the backend cannot
// become ready on the baseline's config before the first trial.
var ErrPreflight = errors.New("pre-flight: the backend did not become ready on the baseline config")

// preflightLogLines is how many last lines of each service log a failed
// pre-flight prints.
const preflightLogLines = 20

// preflightSpec is the trial the pre-flight starts the backend on: the
// baseline, else the plan's first trial (false without trials).
func preflightSpec(trials []experiments.TrialSpec) (experiments.TrialSpec, bool) {
	for _, t := range trials {
		if t.Baseline {
			return t, true
		}
	}
	if order := Flatten(Plan(trials)); len(order) > 0 {
		return order[0], true
	}
	return experiments.TrialSpec{}, false
}

// preflight starts b once on spec's config before any trial runs, so that
// a setup that cannot serve at all (a missing corpus, a command that
// exits at once) fails the run with its cause instead of failing every
// trial. The service is left running: the first trial, the baseline in
// plan order, finds it on its config and is not restarted again (for
// backends that can tell, see backend.Restarter). It reports whether the
// backend restarted.
func preflight(ctx context.Context, b backend.Backend, spec experiments.TrialSpec) (bool, error) {
	restarted, err := pass.Start(ctx, b, spec.Params, true)
	if err != nil {
		return restarted, fmt.Errorf("%w (trial %q): %w", ErrPreflight, spec.Name, err)
	}
	return restarted, nil
}

// preflightSearch makes one sample search on the service the pre-flight
// started (spec's config; none when sample is nil): an answer that shows
// the search itself is set up wrong (backend.ErrSearchSetup: the request
// refused as malformed, the response not matching the mapping's paths)
// fails the pre-flight too, since every query of every trial would fail
// alike. Other errors are left to the trials, which retry.
func preflightSearch(ctx context.Context, b backend.Backend, spec experiments.TrialSpec, sample *backend.SearchRequest) error {
	if sample == nil {
		return nil
	}
	if _, err := b.Search(ctx, *sample); errors.Is(err, backend.ErrSearchSetup) {
		return fmt.Errorf("%w: a sample search on the baseline config (trial %q, query %q) failed: %w", ErrPreflightSearch, spec.Name, sample.Query, err)
	}
	return nil
}

// ErrPreflightSearch is returned (as an input error) when the pre-flight's
// sample search shows the search request or its response mapping does not
// fit the service (backend.ErrSearchSetup).
var ErrPreflightSearch = errors.New("pre-flight: the search settings do not fit the service")

// failedPreflight is the error of a failed pre-flight: err, then each
// service log of the backend directory dir — its path and last lines. With
// keep false (a new run whose directory is removed next) the logs are
// first copied to the temporary directory and those copies named.
func failedPreflight(err error, dir string, keep bool) error {
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	var b strings.Builder
	b.WriteString(err.Error())
	if len(logs) == 0 {
		b.WriteString("\n(the backend wrote no service log)")
	}
	for _, path := range logs {
		data, rerr := os.ReadFile(path)
		if rerr != nil {
			fmt.Fprintf(&b, "\nservice log %s: %v", path, rerr)
			continue
		}
		if !keep {
			if kept, cerr := keepLog(path, data); cerr == nil {
				path = kept
			}
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(data) == 0 {
			lines = nil
		}
		from := max(0, len(lines)-preflightLogLines)
		fmt.Fprintf(&b, "\nservice log %s (last %d of %d lines):", path, len(lines)-from, len(lines))
		for _, l := range lines[from:] {
			b.WriteString("\n  " + l)
		}
	}
	return &preflightError{msg: b.String(), err: err}
}

// keepLog copies a service log out of a run directory about to be removed.
func keepLog(path string, data []byte) (string, error) {
	f, err := os.CreateTemp("", "fusiontune-preflight-*-"+filepath.Base(path))
	if err != nil {
		return "", err
	}
	_, err = io.Copy(f, bytes.NewReader(data))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return f.Name(), err
}

// preflightError is a failed pre-flight's message with the service logs;
// it unwraps to the cause (ErrPreflight and the backend's error).
type preflightError struct {
	msg string
	err error
}

func (e *preflightError) Error() string { return e.msg }
func (e *preflightError) Unwrap() error { return e.err }
