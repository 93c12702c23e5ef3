package verdict

import (
	"errors"
	"fmt"
	"os"

	"github.com/fusiontune/fusiontune/runs"
)

// LatestOnBranch is the --against value naming the newest finished run
// recorded on the base branch.
const LatestOnBranch = "latest-on-branch"

// ResolveReference resolves tune check-quality's --against: LatestOnBranch
// (the newest finished run of store recorded on branch base), a baseline
// file (runs.ReadBaseline), or a run of store.
func ResolveReference(store *runs.Store, ref, base string) (*Reference, error) {
	if ref == LatestOnBranch {
		if base == "" {
			return nil, errors.New("--against latest-on-branch: no branch known: give --base-branch NAME (or --branch)")
		}
		list, err := store.List()
		if err != nil {
			return nil, fmt.Errorf("--against latest-on-branch: %w", err)
		}
		for i := len(list) - 1; i >= 0; i-- {
			r := list[i]
			if r.LoadErr == nil && r.Manifest.Branch == base && r.Manifest.Status == "done" {
				return ReferenceOf(r, "")
			}
		}
		return nil, fmt.Errorf("--against latest-on-branch: no finished run recorded on branch %q in %s (runs record their branch with tune check-quality --branch)", base, store.Dir)
	}
	if st, err := os.Stat(ref); err == nil && st.Mode().IsRegular() {
		b, err := runs.ReadBaseline(ref)
		if err != nil {
			return nil, fmt.Errorf("--against: %w", err)
		}
		return &Reference{Name: "baseline " + ref + " (run " + b.Run + ")", Baseline: b}, nil
	}
	run, err := store.Resolve(ref)
	if err != nil {
		return nil, fmt.Errorf("--against %s: %w", ref, err)
	}
	r, err := ReferenceOf(run, "")
	if err != nil {
		return nil, fmt.Errorf("--against %s: %w", ref, err)
	}
	return r, nil
}
