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
// on w, one a line; notes and warnings go to log.
func ExportFiles(open func() (*Dataset, error), r ExportRequest, w, log io.Writer) error {
	var run []byte
	if r.Trial != "" {
		store, err := r.OpenStore()
		if err != nil {
			return err
		}
		data, note, err := TrialRunBytes(store, r.Trial)
		if err != nil {
			return err
		}
		if run = data; note != "" {
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
	paths, err := ExportWithRun(ds, r.Format, r.Dir, run)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintln(w, p)
	}
	return nil
}
