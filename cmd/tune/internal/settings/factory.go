package settings

import (
	"fmt"
	"os"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/kinds"
	"github.com/fusiontune/fusiontune/runs"
)

// NewHost is the Host of this process: the running tune executable, the
// engine cache under CachePath, and r receiving (and redacting) the
// secrets the options read.
func NewHost(r *runs.Redactor) (Host, error) {
	exe, err := os.Executable()
	if err != nil {
		return Host{}, fmt.Errorf("embedded backend: find the tune executable: %w", err)
	}
	return Host{Exe: exe, CacheDir: CachePath("engine"), Redact: r.Writer, Secret: r.Add, Header: r.AddHeader, Environ: os.Environ()}, nil
}

// Factory builds the backend kind the settings name (backend/kinds) on
// this process (NewHost, secrets to r); corpus is the embedded engine's
// default corpus. Errors are placed where the settings set the value.
func (s *Settings) Factory(corpus string, r *runs.Redactor) (backend.Factory, error) {
	h, err := NewHost(r)
	var o kinds.Options
	if err == nil {
		o, err = s.Backend.Options(corpus, h)
	}
	var f backend.Factory
	if err == nil {
		f, err = kinds.New(o)
	}
	if err != nil && s.Src != nil {
		err = s.Src.Place(err)
	}
	return f, err
}
