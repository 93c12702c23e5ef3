package settings

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// OpenLabels opens the judge commands' label store (LabelsURL); the
// password of a postgres:// URL joins r's secrets. With create false, a
// SQLite file that does not exist yet is not created and the store is
// nil. A malformed URL is the user's error (inputerr.Error), placed at
// the labels setting.
func (s *Settings) OpenLabels(ctx context.Context, r *runs.Redactor, create bool) (*labels.Store, error) {
	url := s.LabelsURL()
	loc, err := labels.ParseURL(url)
	if err == nil && loc.Redacted != url {
		r.Add(passwordOf(url))
	}
	if !create && labels.Absent(url) {
		return nil, nil
	}
	st, err := labels.Open(ctx, url)
	if errors.Is(err, labels.ErrBadURL) {
		return nil, inputerr.Wrap(fmt.Errorf("%s: labels: %w", s.Src.Where("labels"), err))
	}
	return st, err
}

// passwordOf returns the password of a URL ("" when none), even of one
// net/url cannot parse.
func passwordOf(raw string) string {
	_, rest, _ := strings.Cut(raw, "://")
	userinfo, _, ok := strings.Cut(rest, "@")
	if !ok {
		return ""
	}
	_, pw, _ := strings.Cut(userinfo, ":")
	return pw
}
