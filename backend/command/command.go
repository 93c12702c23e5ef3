package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/httpbackend"
)

// Kind is backend.kind for a command-line search program.
const Kind = "command"

// Defaults and ranges of Options.
const (
	DefaultTimeout     = 30 * time.Second
	MaxTimeout         = 10 * time.Minute
	DefaultConcurrency = 4
	MaxConcurrency     = 64
	// maxOutput bounds what is read of a process's stdout; stderr keeps
	// its last stderrBytes for error messages.
	maxOutput   = 16 << 20
	stderrBytes = 2 << 10
)

// Options configure the command kind.
type Options struct {
	// Argv is the program and its arguments. Placeholders inside any
	// argument: {query} (the query text), {k} (hits wanted), and {NAME}
	// for a trial parameter NAME (e.g. {fusion.k}). Never run by a shell.
	Argv []string
	// Dir is the working directory ("" the current one); Env, when not
	// nil, is the process environment (nil inherits tune's).
	Dir string
	Env []string
	// Timeout bounds one query's process (default 30 s, at most 10 min);
	// Concurrency, the processes running at once (default 4, 1 to 64).
	Timeout     time.Duration
	Concurrency int
	// Regex, when set, reads the hits from stdout: every match is one hit,
	// in order; the id is the group named "id", else group 1, else the
	// whole match; optional groups "score" and "text". Without Regex,
	// stdout is JSON mapped by JSON (Hits and ID required).
	Regex string
	JSON  httpbackend.Response
}

// Check validates o: the argv, the ranges, the regex or the JSON paths.
// Errors name the setting (backend.command, backend.command_options.*).
func (o Options) Check() error {
	var errs []error
	if len(o.Argv) == 0 || o.Argv[0] == "" {
		errs = append(errs, errors.New(`backend.command: required: the program's argv, e.g. ["./search", "{query}", "--limit", "{k}"]`))
	}
	if o.Timeout < 0 || o.Timeout > MaxTimeout {
		errs = append(errs, fmt.Errorf("backend.command_options.timeout: must be in (0, %s] (got %s)", MaxTimeout, o.Timeout))
	}
	if o.Concurrency < 0 || o.Concurrency > MaxConcurrency {
		errs = append(errs, fmt.Errorf("backend.command_options.concurrency: must be in [1, %d] (got %d)", MaxConcurrency, o.Concurrency))
	}
	if o.Regex != "" {
		if _, err := regexp.Compile(o.Regex); err != nil {
			errs = append(errs, fmt.Errorf("backend.command_options.regex: %w", err))
		}
	} else if o.JSON.Hits == "" || o.JSON.ID == "" {
		errs = append(errs, errors.New("backend.command_options.regex: required unless stdout is JSON mapped by backend.search.hits and backend.search.id"))
	}
	return errors.Join(errs...)
}

// Factory is the command kind, ready to check, describe and open.
type Factory struct {
	o  Options
	re *regexp.Regexp
}

var _ backend.Factory = (*Factory)(nil)

// New checks o and builds the factory.
func New(o Options) (*Factory, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Concurrency == 0 {
		o.Concurrency = DefaultConcurrency
	}
	f := &Factory{o: o}
	if o.Regex != "" {
		f.re = regexp.MustCompile(o.Regex)
	}
	return f, nil
}

var placeholder = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_.\-]*)\}`)

// argv fills the placeholders of the argv for one query.
func (f *Factory) argv(query string, k int, params map[string]any) ([]string, error) {
	out := make([]string, len(f.o.Argv))
	var missing []string
	for i, a := range f.o.Argv {
		out[i] = placeholder.ReplaceAllStringFunc(a, func(m string) string {
			name := m[1 : len(m)-1]
			switch name {
			case "query":
				return query
			case "k":
				return strconv.Itoa(k)
			}
			v, ok := params[name]
			if !ok {
				missing = append(missing, name)
				return m
			}
			return fmt.Sprint(v)
		})
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("backend.command: placeholder {%s} is neither {query}, {k} nor a parameter of the trial", missing[0])
	}
	return out, nil
}

// Check reports a placeholder params do not fill.
func (f *Factory) Check(params map[string]any) error {
	_, err := f.argv("q", 1, params)
	return err
}

// Describe is the argv params run with ({query} and {k} left as they are).
func (f *Factory) Describe(params map[string]any) string {
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	sort.Strings(names)
	argv := make([]string, len(f.o.Argv))
	for i, a := range f.o.Argv {
		argv[i] = placeholder.ReplaceAllStringFunc(a, func(m string) string {
			if v, ok := params[m[1:len(m)-1]]; ok {
				return fmt.Sprint(v)
			}
			return m
		})
	}
	b, _ := json.Marshal(argv)
	return "# command backend (one process per query, no shell)\nargv: " + string(b) + "\n"
}

// Open returns the backend; it writes nothing to dir.
func (f *Factory) Open(_ string, log io.Writer) (backend.Backend, error) {
	fmt.Fprintf(log, "command backend: %s per query, at most %d at once, %s each\n", f.o.Argv[0], f.o.Concurrency, f.o.Timeout)
	return &Backend{f: f, sem: make(chan struct{}, f.o.Concurrency)}, nil
}

// Backend runs the program once per query. It is safe for concurrent use.
type Backend struct {
	f      *Factory
	sem    chan struct{}
	mu     sync.RWMutex
	params map[string]any
}

var (
	_ backend.Backend   = (*Backend)(nil)
	_ backend.Restarter = (*Backend)(nil)
)

// Ready checks that the program can be found.
func (b *Backend) Ready(context.Context) error {
	if _, err := exec.LookPath(b.f.o.Argv[0]); err != nil {
		return fmt.Errorf("backend.command: %w", err)
	}
	return nil
}

// Apply keeps the trial's parameters for the argv's placeholders.
func (b *Backend) Apply(_ context.Context, params map[string]any) error {
	if err := b.f.Check(params); err != nil {
		return err
	}
	cp := make(map[string]any, len(params))
	for k, v := range params {
		cp[k] = v
	}
	b.mu.Lock()
	b.params = cp
	b.mu.Unlock()
	return nil
}

// Restart does nothing: there is no service.
func (b *Backend) Restart(context.Context) error { return nil }

// NeedsRestart is always false.
func (b *Backend) NeedsRestart() bool { return false }

// Close does nothing.
func (b *Backend) Close() error { return nil }

// Search runs the program for one query and reads its stdout.
func (b *Backend) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	b.mu.RLock()
	params := b.params
	b.mu.RUnlock()
	argv, err := b.f.argv(req.Query, req.K, params)
	if err != nil {
		return backend.SearchResponse{}, err
	}
	select {
	case b.sem <- struct{}{}:
	case <-ctx.Done():
		return backend.SearchResponse{}, ctx.Err()
	}
	defer func() { <-b.sem }()
	stdout, err := b.run(ctx, argv)
	if err != nil {
		return backend.SearchResponse{}, err
	}
	return b.f.parse(stdout)
}

// run runs argv with the timeout and returns its stdout; a non-zero exit
// is an error carrying the end of its stderr.
func (b *Backend) run(ctx context.Context, argv []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, b.f.o.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = b.f.o.Dir, b.f.o.Env
	cmd.WaitDelay = time.Second
	var out bytes.Buffer
	errTail := &tail{n: stderrBytes}
	cmd.Stdout = &limited{w: &out, n: maxOutput}
	cmd.Stderr = errTail
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return nil, fmt.Errorf("command %s: timed out after %s", argv[0], b.f.o.Timeout)
	}
	if err != nil {
		return nil, fmt.Errorf("command %s: %w: %s", argv[0], err, strings.TrimSpace(errTail.String()))
	}
	return out.Bytes(), nil
}

// parse reads the hits from stdout.
func (f *Factory) parse(stdout []byte) (backend.SearchResponse, error) {
	if f.re == nil {
		resp, err := f.o.JSON.Map(stdout)
		if err != nil {
			return resp, fmt.Errorf("command output: %w", err)
		}
		return resp, nil
	}
	out := backend.SearchResponse{Hits: []backend.Hit{}}
	idx := f.re.SubexpIndex("id")
	if idx < 0 && f.re.NumSubexp() > 0 {
		idx = 1
	}
	si, ti := f.re.SubexpIndex("score"), f.re.SubexpIndex("text")
	for _, m := range f.re.FindAllSubmatch(stdout, -1) {
		id := string(m[0])
		if idx > 0 {
			id = string(m[idx])
		}
		if id == "" {
			continue
		}
		h := backend.Hit{DocID: id, Score: 1 / float64(len(out.Hits)+1)}
		if si > 0 && len(m[si]) > 0 {
			v, err := strconv.ParseFloat(string(m[si]), 64)
			if err != nil {
				return out, fmt.Errorf("command output: hit %d: score %q is not a number", len(out.Hits)+1, m[si])
			}
			h.Score = v
		}
		if ti > 0 {
			h.Text = string(m[ti])
		}
		out.Hits = append(out.Hits, h)
	}
	return out, nil
}

// limited writes at most n bytes to w and drops the rest.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// tail keeps the last n bytes written.
type tail struct {
	n int
	b []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.n {
		t.b = t.b[len(t.b)-t.n:]
	}
	return len(p), nil
}

func (t *tail) String() string { return string(t.b) }
