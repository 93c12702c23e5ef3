package tuner

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

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

// CurrentBranch is flag, else the CI's branch variables (GITHUB_HEAD_REF,
// GITHUB_REF_NAME, CI_COMMIT_REF_NAME), else git's current branch, else "".
func CurrentBranch(flag string) string {
	if flag != "" {
		return flag
	}
	if b := FirstEnv("GITHUB_HEAD_REF", "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME"); b != "" {
		return b
	}
	out, err := exec.Command("git", "rev-parse", "--abbrev-ref", "HEAD").Output()
	if err != nil {
		return ""
	}
	if b := strings.TrimSpace(string(out)); b != "HEAD" {
		return b
	}
	return ""
}

// BaseBranch is flag, else the CI's target-branch variables
// (GITHUB_BASE_REF, CI_MERGE_REQUEST_TARGET_BRANCH_NAME), else current.
func BaseBranch(flag, current string) string {
	if flag != "" {
		return flag
	}
	if b := FirstEnv("GITHUB_BASE_REF", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME"); b != "" {
		return b
	}
	return current
}

// FirstEnv is the first non-empty of the environment variables names.
func FirstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}
