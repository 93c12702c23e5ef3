package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// checkPolicy applies the promotion policy to entry. It returns an error
// (exit 1) naming every reason when the policy refuses and force is off;
// with force it warns and returns forced = true with the overridden
// reasons, for the promotions journal.
func (a *app) checkPolicy(s *settings, run *runs.Run, entry runs.Entry, force bool) (forced bool, reason string, err error) {
	lb, err := run.ReadLeaderboard()
	if err != nil {
		return false, "", err
	}
	var production []byte
	if s.Backend.Config != "" {
		data, err := os.ReadFile(s.Backend.Config)
		switch {
		case err == nil:
			production = data
		case !errors.Is(err, os.ErrNotExist):
			return false, "", fmt.Errorf("promotion policy: read production config: %w", err)
		}
	}
	d, err := tuner.CheckPromotion(run, lb, entry, production, s.policy(run.Manifest.Seed))
	if err != nil {
		return false, "", fmt.Errorf("promotion policy: %w", err)
	}
	if d.Allowed {
		fmt.Fprintf(a.stderr, "promotion policy: %q is significantly better than %s %q: %s\n", entry.Name, d.Reference, d.Against, d.Summary())
		return false, "", nil
	}
	why := strings.Join(d.Reasons, "; ")
	if force {
		fmt.Fprintf(a.stderr, "warning: promotion policy overridden by --force: %s\n", why)
		return true, "forced past the promotion policy: " + why, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "refusing to promote %q (run %s):", entry.Name, run.ID())
	for _, r := range d.Reasons {
		b.WriteString("\n  - " + r)
	}
	b.WriteString("\n(--force promotes anyway and records it in promotions.jsonl)")
	return false, "", failedError(errors.New(b.String()))
}
