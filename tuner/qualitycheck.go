package tuner

import (
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/tuner/verdict"
)

// Against sets the check's reference: ref is a run (id, prefix, path or
// latest), latest-on-branch (the newest run on base, the base branch the
// command resolved: the CI's target branch, else the check's own), or a
// baseline file; "" none. c.Store must be open. A reference
// that does not resolve is an inputerr.Error.
func (c *QualityConfig) Against(ref, base string) error {
	if ref == "" {
		return nil
	}
	r, err := verdict.ResolveReference(c.Store, ref, base)
	if err != nil {
		return inputerr.Wrap(err)
	}
	c.Reference = r
	return nil
}
