package kinds

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/command"
	"github.com/fusiontune/fusiontune/backend/embedded"
	"github.com/fusiontune/fusiontune/backend/external"
	"github.com/fusiontune/fusiontune/backend/lancedb"
	"github.com/fusiontune/fusiontune/backend/postgres"
	"github.com/fusiontune/fusiontune/backend/weaviate"
)

// Backend kinds (setting backend.kind).
const (
	Embedded = "embedded"
	Process  = external.KindProcess
	HTTP     = external.KindHTTP
	Postgres = postgres.Kind
	Weaviate = weaviate.Kind
	Command  = command.Kind
	LanceDB  = lancedb.Kind
)

// Names are the kinds New builds, in the order messages list them.
var Names = []string{Embedded, Process, HTTP, Postgres, Weaviate, Command, LanceDB}

// Options choose a kind and configure it with plain values.
type Options struct {
	// Kind is one of Names.
	Kind string
	// Embedded configures the embedded kind (Corpus may be relative to
	// the working directory: New makes it absolute).
	Embedded embedded.Options
	// External configures the process and http kinds (its Kind is set
	// from Kind).
	External external.Options
	// Postgres configures the postgres kind.
	Postgres postgres.Options
	// Weaviate configures the weaviate kind.
	Weaviate weaviate.Options
	// Command configures the command kind.
	Command command.Options
	// LanceDB configures the lancedb kind.
	LanceDB lancedb.Options
	// Secret, when set, receives every secret value a kind reads from the
	// environment (an embedding API key), for redaction.
	Secret func(...string)
	// Environ is tune's environment as NAME=value entries (the command
	// layer passes os.Environ()): the services the kinds start begin from
	// it unless their own options set one, and the variable the embedded
	// kind's config names for its key (dense.api_key_env) is read from it.
	Environ []string
}

// withEnviron is o with Environ in each kind's options that sets none.
func (o Options) withEnviron() Options {
	if o.Embedded.Environ == nil {
		o.Embedded.Environ = o.Environ
	}
	if o.External.Environ == nil {
		o.External.Environ = o.Environ
	}
	if o.Weaviate.Environ == nil {
		o.Weaviate.Environ = o.Environ
	}
	if o.LanceDB.Environ == nil {
		o.LanceDB.Environ = o.Environ
	}
	return o
}

// getenv is the value of the variable name in environ ("" when unset);
// a name set twice has its last value, as a child process sees it.
func getenv(environ []string, name string) string {
	for i := len(environ) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(environ[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// New builds the factory of o.Kind. Its errors are the user's (a bad
// config, a missing file).
func New(o Options) (backend.Factory, error) {
	o = o.withEnviron()
	switch o.Kind {
	case Process, HTTP:
		e := o.External
		e.Kind = o.Kind
		return external.New(e)
	case Embedded:
		return newEmbedded(o)
	case Command:
		return command.New(o.Command)
	case Postgres:
		return postgres.New(o.Postgres)
	case Weaviate:
		f, err := weaviate.New(o.Weaviate)
		if err != nil {
			return nil, fmt.Errorf("backend.%w", err)
		}
		return f, nil
	case LanceDB:
		f, err := lancedb.New(o.LanceDB)
		if err != nil {
			return nil, fmt.Errorf("backend.%w", err)
		}
		return f, nil
	}
	return nil, fmt.Errorf("backend.kind: unknown kind %q", o.Kind)
}

func newEmbedded(o Options) (backend.Factory, error) {
	e := o.Embedded
	if e.Corpus != "" {
		// The engine runs in the run directory: a path relative to the
		// working directory would not find the corpus there.
		abs, err := filepath.Abs(e.Corpus)
		if err != nil {
			return nil, err
		}
		e.Corpus = abs
	}
	f, err := embedded.New(e)
	if err != nil {
		return nil, err
	}
	if env := f.SecretEnv(); env != "" && o.Secret != nil {
		o.Secret(getenv(o.Environ, env)) // the variable a setting (dense.api_key_env) names
	}
	return f, nil
}

// Verify brings the service up on a production config file for a
// promotion (backend.Verifier): embedded and process start the service,
// check it and stop it again; http restarts the user's service, which
// stays up; postgres and weaviate install the config in the user's
// database or server (weaviate with bin: a server of its own, stopped
// again); lancedb checks the query parameters on a sidecar of its own. The embedded kind needs only its executable and timeouts.
func Verify(o Options, config, dir string, log io.Writer, check func(context.Context, backend.Searcher) error) (func(context.Context) error, error) {
	o = o.withEnviron()
	if o.Kind == Embedded {
		e := o.Embedded
		e.Redact = nil // the promotion's own output is already redacted
		return embedded.Verify(e, config, dir, log, check)
	}
	f, err := New(o)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	v, ok := f.(backend.Verifier)
	if !ok {
		return nil, fmt.Errorf("backend.kind %s: promotion is not supported", o.Kind)
	}
	return v.Verify(config, dir, log, check)
}

// InputError marks an error of Verify as the user's (a bad setting), not
// a failed promotion.
type InputError struct{ Err error }

// Error returns the wrapped error's message.
func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *InputError) Unwrap() error { return e.Err }
