package verdict

import (
	"io"

	"github.com/fusiontune/fusiontune/runs"
)

// GateTrial checks gates on a recorded trial (CheckGates), records the
// results in the run (RecordGates) and writes them to w (WriteGates),
// whose error says whether a gate failed.
func GateTrial(run *runs.Run, entry runs.Entry, gates []Gate, w io.Writer) error {
	results, err := CheckGates(run, entry, gates)
	if err != nil {
		return err
	}
	if err := RecordGates(run, entry, results); err != nil {
		return err
	}
	return WriteGates(w, run, entry, results)
}
