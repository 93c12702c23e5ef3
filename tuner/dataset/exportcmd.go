package dataset

import (
	"fmt"
	"io"

	"github.com/fusiontune/fusiontune/runs"
)

// ExportRequest is `tune export`: the format (ExportTREC or ExportBEIR)
// and directory to write the dataset into, and, with Trial (RUN or
// RUN:TRIAL), that recorded trial's ranking beside it, from the runs
// directory OpenStore opens.
type ExportRequest struct {
	Format, Dir, Trial string
	OpenStore          func() (*runs.Store, error)
}

// ExportFiles reads and checks everything r needs before the first file
// is written (the trial's ranking, TrialRunBytes, then the dataset open
// opens), writes the export (ExportWithRun) and lists the paths written
// on w, one a line; notes and warnings go to log. With a trial, the
// golden set exported holds the judged queries the trial was scored on
// (a dev-split run's dev queries), so that trec_eval -c scores the run
// file as the leaderboard did.
func ExportFiles(open func() (*Dataset, error), r ExportRequest, w, log io.Writer) error {
	var run []byte
	var scored map[string]bool
	if r.Trial != "" {
		store, err := r.OpenStore()
		if err != nil {
			return err
		}
		data, queries, note, err := trialRunAndQueries(store, r.Trial)
		if err != nil {
			return err
		}
		if run, scored = data, queries; note != "" {
			fmt.Fprintln(log, note)
		}
	}
	ds, err := open()
	if err != nil {
		return err
	}
	for _, n := range ds.ExportNotes() {
		fmt.Fprintln(log, n)
	}
	if scored != nil {
		if n := len(ds.Queries); ds.keepQueries(scored) < n {
			fmt.Fprintf(log, "note: exporting the %d judged queries trial %s was scored on (of %d)\n", len(ds.Queries), r.Trial, n)
		}
	}
	paths, err := ExportWithRun(ds, r.Format, r.Dir, run)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintln(w, p)
	}
	return nil
}

// keepQueries keeps, of ds's queries, those ids holds, and returns how
// many it kept.
func (ds *Dataset) keepQueries(ids map[string]bool) int {
	kept := ds.Queries[:0:0]
	for _, q := range ds.Queries {
		if ids[q.ID] {
			kept = append(kept, q)
		}
	}
	ds.Queries = kept
	return len(kept)
}
