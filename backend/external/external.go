package external

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/httpbackend"
	"github.com/fusiontune/fusiontune/backend/process"
	"github.com/fusiontune/fusiontune/backend/render"
	"github.com/fusiontune/fusiontune/internal/userfile"
)

// The kinds this package builds.
const (
	KindProcess = "process"
	KindHTTP    = "http"
)

// DefaultReadyTimeout bounds a read-only backend's wait for its health
// URL when StartTimeout is not set.
const DefaultReadyTimeout = time.Minute

// Options configure an external backend kind.
type Options struct {
	// Kind is KindProcess or KindHTTP.
	Kind string
	// Template is the config template's path (Go text/template; values
	// are escaped for YAML or JSON).
	Template string
	// Config is the service's config file: for http the file each trial
	// rewrites (it must exist; it is backed up and restored), for both the
	// production config a promotion writes.
	Config string
	// Command is the process kind's service argv ("{config}" is the
	// rendered config file); Restart the http kind's restart argv.
	Command, Restart []string
	// StartTimeout, StopTimeout and Settle bound a restart.
	StartTimeout, StopTimeout, Settle time.Duration
	// Search is the request/response half (header values already read).
	Search httpbackend.SearchOptions
	// Environ is the environment the service command or the restart
	// command starts from (process.Options.Environ,
	// httpbackend.Options.Environ).
	Environ []string
}

// Factory is a process or http kind, ready to check, describe and open.
type Factory struct {
	o        Options
	tmpl     *render.Template
	searcher *httpbackend.Searcher
	config   string // Config made absolute ("" when unset)
}

var (
	_ backend.Factory  = (*Factory)(nil)
	_ backend.Verifier = (*Factory)(nil)
)

// ReadOnly reports whether o is a read-only http backend: no config, no
// template, no restart command. Such a backend is only searched; a
// trial's parameters reach the request templates as params.NAME.
func (o Options) ReadOnly() bool {
	return o.Kind == KindHTTP && o.Template == "" && o.Config == "" && len(o.Restart) == 0
}

// New reads and parses the template and builds the searcher. Errors name
// the setting at fault (backend.template, backend.config, backend.search).
// A read-only http backend (Options.ReadOnly) needs only the searcher.
func New(o Options) (*Factory, error) {
	if o.ReadOnly() {
		s, err := httpbackend.NewSearcher(o.Search)
		if err != nil {
			return nil, searchError(err)
		}
		return &Factory{o: o, searcher: s}, nil
	}
	text, err := userfile.Read(o.Template, userfile.Default)
	if err != nil {
		return nil, fmt.Errorf("backend.template: %w", err)
	}
	target := o.Template
	if o.Kind == KindHTTP {
		target = o.Config
	}
	f, err := render.FormatOf(target)
	if err != nil {
		return nil, fmt.Errorf("backend.template: %w", err)
	}
	tmpl, err := render.Parse(o.Template, string(text), f)
	if err != nil {
		return nil, fmt.Errorf("backend.template: %w", err)
	}
	t := &Factory{o: o, tmpl: tmpl}
	if o.Config != "" {
		if t.config, err = filepath.Abs(o.Config); err != nil {
			return nil, fmt.Errorf("backend.config: %w", err)
		}
	}
	if o.Kind == KindHTTP {
		if _, err := os.Stat(t.config); err != nil {
			return nil, fmt.Errorf("backend.config: the service's config file must exist (it is backed up and restored): %w", err)
		}
	}
	if t.searcher, err = httpbackend.NewSearcher(o.Search); err != nil {
		return nil, searchError(err)
	}
	return t, nil
}

// searchError names the setting of a searcher's error: backend.search.body
// for one about search.body, else backend.search.
func searchError(err error) error {
	if strings.HasPrefix(err.Error(), "search.") {
		return fmt.Errorf("backend.%w", err)
	}
	return fmt.Errorf("backend.search: %w", err)
}

func (t *Factory) render(params map[string]any) ([]byte, error) { return t.tmpl.Execute(params) }

// Check renders params' config through the template (a read-only backend
// has none: its parameters go to the request templates).
func (t *Factory) Check(params map[string]any) error {
	if t.tmpl == nil {
		return nil
	}
	if _, err := t.render(params); err != nil {
		return fmt.Errorf("backend.template: %w", err)
	}
	return nil
}

// Describe is the exact config params run on.
func (t *Factory) Describe(params map[string]any) string {
	if t.tmpl == nil {
		return readOnlyDescription(t.o.Search.URL, params)
	}
	return render.Described(t.render(params))
}

// renderedName is the file name a trial's config gets in the run
// directory: the template's name without .tmpl/.tpl.
func (t *Factory) renderedName() string {
	base := filepath.Base(t.o.Template)
	return strings.TrimSuffix(strings.TrimSuffix(base, ".tmpl"), ".tpl")
}

// Open builds the backend with its files (rendered config, service or
// restart log, the http kind's backup of the service's config) in dir.
func (t *Factory) Open(dir string, log io.Writer) (backend.Backend, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	o := t.o
	if t.tmpl == nil {
		fmt.Fprintf(log, "http backend: read-only (no config, template or restart): searching %s as it runs\n", o.Search.URL)
		timeout := o.StartTimeout
		if timeout <= 0 {
			timeout = DefaultReadyTimeout
		}
		return &readOnly{s: t.searcher, timeout: timeout}, nil
	}
	if o.Kind == KindProcess {
		slog, err := os.OpenFile(filepath.Join(dir, "service.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		return process.New(process.Options{
			Command: o.Command, ConfigPath: filepath.Join(dir, t.renderedName()), Render: t.render,
			Dial:         func(string) (backend.Searcher, error) { return t.searcher, nil },
			StartTimeout: o.StartTimeout, StopTimeout: o.StopTimeout, Settle: o.Settle, Log: slog, Environ: o.Environ,
		})
	}
	rlog, err := os.OpenFile(filepath.Join(dir, "restart.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	backup := filepath.Join(dir, "original-"+filepath.Base(t.config))
	fmt.Fprintf(log, "http backend: %s is backed up to %s and restored when the sweep ends\n", t.config, backup)
	hb, err := httpbackend.New(httpbackend.Options{
		ConfigPath: t.config, Render: t.render, BackupPath: backup, Restart: o.Restart,
		RestartTimeout: o.StartTimeout, ReadyTimeout: o.StartTimeout, Settle: o.Settle, Search: t.searcher, Log: rlog, Environ: o.Environ,
	})
	if err != nil {
		return nil, err
	}
	return restoring{hb, t.config, backup, log}, nil
}

// restoring says on the log that Close is restoring the service's config
// (a restart can take a while, and a second Ctrl-C does not stop it), and
// where the original bytes are if the restore fails.
type restoring struct {
	*httpbackend.Backend
	config, backup string
	log            io.Writer
}

func (r restoring) Close() error {
	fmt.Fprintf(r.log, "http backend: restoring %s and restarting the service on it\n", r.config)
	if err := r.Backend.Close(); err != nil {
		return fmt.Errorf("%w (the original bytes are in %s)", err, r.backup)
	}
	return nil
}

// Verify brings the service up on the production config for a promotion:
// for process, start the user's command on it, check and stop it again;
// for http, run the restart command, wait healthy, check (the service
// stays up on the new config).
func (t *Factory) Verify(config, _ string, log io.Writer, check func(context.Context, backend.Searcher) error) (func(context.Context) error, error) {
	if t.tmpl == nil {
		return nil, ErrReadOnly
	}
	unused := func(map[string]any) ([]byte, error) { return nil, errors.New("not used") }
	o := t.o
	if o.Kind == KindProcess {
		return process.Verifier(process.Options{
			Command: o.Command, ConfigPath: config, Render: unused,
			Dial:         func(string) (backend.Searcher, error) { return t.searcher, nil },
			StartTimeout: o.StartTimeout, StopTimeout: o.StopTimeout, Settle: o.Settle, Log: log, Environ: o.Environ,
		}, check)
	}
	hb, err := httpbackend.New(httpbackend.Options{
		ConfigPath: config, Render: unused, Restart: o.Restart, Search: t.searcher,
		RestartTimeout: o.StartTimeout, ReadyTimeout: o.StartTimeout, Settle: o.Settle, Log: log, Environ: o.Environ,
	})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		if _, err := os.Stat(config); errors.Is(err, os.ErrNotExist) {
			if log != nil {
				fmt.Fprintf(log, "http backend: %s does not exist (a rollback past the first promotion): the service is not restarted\n", config)
			}
			return nil
		}
		if err := hb.Restart(ctx); err != nil {
			return err
		}
		if err := hb.Ready(ctx); err != nil {
			return err
		}
		return check(ctx, hb)
	}, nil
}
