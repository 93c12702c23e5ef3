package adapt

import (
	"fmt"

	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/inputerr"
)

// Output checks what `tune adapt` does with its reports: --out and
// --apply (apply) need the run's one replay group, whose learned policy is
// written to out ("" none). It returns that group's report (nil when
// neither is asked for); a run with several groups is an inputerr.Error.
func Output(reports []*Report, out string, apply bool) (*Report, error) {
	if out == "" && !apply {
		return nil, nil
	}
	if len(reports) != 1 {
		return nil, inputerr.Wrap(fmt.Errorf("--out and --apply: the run has %d replay groups: pick one with --collection", len(reports)))
	}
	r := reports[0]
	if out == "" {
		return r, nil
	}
	data, err := r.Learned.Encode()
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(out, data, 0o644); err != nil {
		return nil, fmt.Errorf("adapt: --out: %w", err)
	}
	return r, nil
}
