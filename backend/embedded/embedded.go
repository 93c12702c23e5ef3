package embedded

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/client"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/backend/process"
	"github.com/fusiontune/fusiontune/backend/render"
	"github.com/fusiontune/fusiontune/internal/secrets"
	"github.com/fusiontune/fusiontune/internal/userfile"
)

// DefaultDenseModel is the dense retriever when the config names none:
// hashed character n-grams are robust to the misspellings the demo golden
// set contains.
const DefaultDenseModel = "hash-384"

// renderMemo bounds the rendered configs a sweep keeps: each trial's is
// rendered to check it, to record and to apply it.
const renderMemo = 4096

// Options configure the embedded backend kind. Paths are taken as given
// (relative ones against the working directory) unless noted.
type Options struct {
	// ConfigFile is an engine YAML the settings' Engine keys overlay (""
	// for none); its relative corpus.path and cache_dir are resolved
	// against its own directory.
	ConfigFile string
	// Engine are engine config keys (nested maps) overlaying ConfigFile.
	Engine map[string]any
	// Corpus is corpus.path when the config sets none.
	Corpus string
	// CacheDir is cache_dir when the config sets none (created when the
	// backend opens, not before).
	CacheDir string
	// Exe is the tune executable whose serve subcommand runs the engine.
	Exe string
	// StartTimeout, StopTimeout and Settle are process.Options'.
	StartTimeout, StopTimeout, Settle time.Duration
	// Redact wraps the service log so that no secret reaches it (nil: as
	// is).
	Redact func(io.Writer) io.Writer
	// Environ is the environment `tune serve` starts from
	// (process.Options.Environ).
	Environ []string
}

// Factory is the embedded kind, ready to check, describe and open trials.
type Factory struct {
	o      Options
	base   map[string]any
	render render.Func
	// cfg is the base config parsed and validated once: a trial's
	// parameters overlay it as typed values (engine.Config.WithParams).
	cfg engine.Config

	chunksMu sync.Mutex
	corpus   *corpus.Corpus                // read by the first Fingerprint not kept in the cache
	chunks   map[corpus.ChunkConfig]string // chunk fingerprint per chunk settings
}

var (
	_ backend.Factory    = (*Factory)(nil)
	_ backend.Replicator = (*Factory)(nil)
	_ backend.Verifier   = (*Factory)(nil)

	_ backend.FusionResolver = (*Factory)(nil)
	_ backend.Fingerprinter  = (*Factory)(nil)
	_ backend.Defaulter      = (*Factory)(nil)
)

// New builds the base engine config and checks it the way `tune serve`
// will. Errors name the setting at fault.
func New(o Options) (*Factory, error) {
	base := map[string]any{}
	if o.ConfigFile != "" {
		data, err := userfile.Read(o.ConfigFile, userfile.Default)
		switch {
		case errors.Is(err, os.ErrNotExist):
			// Not there yet: the first promotion creates it, and until
			// then the settings alone make the base config.
		case err != nil:
			return nil, fmt.Errorf("backend.config: %w", err)
		default:
			if base, err = render.ReadYAMLMap(data); err != nil {
				return nil, fmt.Errorf("backend.config %s: %w", o.ConfigFile, err)
			}
			render.AbsPaths(base, filepath.Dir(o.ConfigFile), PathKeys...)
		}
	}
	if len(o.Engine) > 0 {
		data, err := render.YAMLOverlay(base)(flatten("", o.Engine))
		if err == nil {
			base, err = render.ReadYAMLMap(data)
		}
		if err != nil {
			return nil, fmt.Errorf("backend.engine: %w", err)
		}
	}
	if err := noLiteralSecrets("", base); err != nil {
		return nil, err
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if _, ok := base["corpus"]; !ok {
		base["corpus"] = map[string]any{"path": o.Corpus}
	}
	if _, ok := base["cache_dir"]; !ok {
		base["cache_dir"] = o.CacheDir
	}
	// After the defaults: a relative Corpus is the working directory's
	// too, not the run directory's the engine reads its config in.
	render.AbsPaths(base, wd, PathKeys...)
	if dense, _ := base["dense"].(map[string]any); dense == nil || dense["model"] == nil {
		d := map[string]any{}
		for k, v := range dense {
			d[k] = v
		}
		d["model"] = DefaultDenseModel
		base["dense"] = d
	}
	f := newFactory(o, base)
	// The settings' own engine keys first: a bad key there is one problem
	// of the settings, not one per trial.
	data, err := f.render(nil)
	if err != nil {
		return nil, fmt.Errorf("backend.engine: %w", err)
	}
	if f.cfg, err = engine.ParseConfig(data, "backend.engine", "/"); err != nil {
		return nil, fmt.Errorf("backend.config + backend.engine: engine config: %w", err)
	}
	return f, nil
}

func newFactory(o Options, base map[string]any) *Factory {
	return &Factory{o: o, base: base, render: render.Memo(render.YAMLOverlay(base, backend.CustomPrefix), renderMemo)}
}

// Fusion is a trial's query-time settings exactly as `tune serve` will
// apply them: its parameters overlaid on the parsed base config as typed
// values (no YAML is rendered or parsed), with an explicit weight for
// every enabled retriever.
func (f *Factory) Fusion(params map[string]any) (fusion.Settings, error) {
	cfg, err := f.cfg.WithParams(params)
	if err != nil {
		return fusion.Settings{}, err
	}
	if cfg.Rerank.On() && !cfg.Passage && cfg.Chunk.Size > 0 {
		// A document's hit reads its best chunk under the trial's own
		// floors: the candidates' scores do not tell which.
		return fusion.Settings{}, fmt.Errorf("the rerank stage reads each document's best chunk: %w (it runs live; whole documents or passage mode replay)", backend.ErrNotReplayable)
	}
	return cfg.FusionSettings(), nil
}

// Effective is the value parameter name takes in the engine config params
// run on (engine.Config.Param): the engine's default when params leave it
// unset.
func (f *Factory) Effective(params map[string]any, name string) (any, bool) {
	cfg, err := f.Config(params)
	if err != nil {
		return nil, false
	}
	return cfg.Param(name)
}

// SecretEnv is the environment variable the engine reads its embedding
// API key from ("" for none): its value is a secret to redact.
func (f *Factory) SecretEnv() string {
	dense, _ := f.base["dense"].(map[string]any)
	name, _ := dense["api_key_env"].(string)
	return name
}

// noLiteralSecrets refuses a secret written into the engine config
// (backend.config or backend.engine): secrets come only from environment
// variables, named by a ..._env key, so that no config, snapshot or run
// record ever holds one.
func noLiteralSecrets(prefix string, m map[string]any) error {
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			if err := noLiteralSecrets(key, sub); err != nil {
				return err
			}
			continue
		}
		if secrets.IsKey(k) {
			return fmt.Errorf("backend.engine %s: secrets are read only from environment variables: name the variable with %s_env (e.g. api_key_env: OPENAI_API_KEY)", key, k)
		}
		if str, ok := v.(string); ok {
			if u, err := url.Parse(str); err == nil && u.User != nil {
				if _, has := u.User.Password(); has {
					return fmt.Errorf("backend.engine %s: a URL with a password: secrets are read only from environment variables (use api_key_env)", key)
				}
			}
		}
	}
	return nil
}

// flatten turns nested maps into dotted keys.
func flatten(prefix string, m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			for kk, vv := range flatten(key, sub) {
				out[kk] = vv
			}
			continue
		}
		out[key] = v
	}
	return out
}

// Check validates params' engine config the way `tune serve` will read
// it (Config), so a bad parameter fails before any restart.
func (f *Factory) Check(params map[string]any) error {
	cfg, err := f.Config(params)
	if err == nil && cfg.Has(engine.Dense) && !strings.HasPrefix(cfg.Dense.Model, "openai:") {
		// Catch an unknown embedder spec now; openai models are checked
		// by the service itself, which reaches the server.
		if _, eerr := embed.New(cfg.Dense.Model, embed.Options{}); eerr != nil {
			err = fmt.Errorf("dense.model %q: %w", cfg.Dense.Model, eerr)
		}
	}
	if err != nil {
		return fmt.Errorf("engine config: %w", err)
	}
	return nil
}

// Describe is the exact engine config params run on.
func (f *Factory) Describe(params map[string]any) string {
	return render.Described(f.render(params))
}

// Config is the engine config params run on: params overlaid on the
// parsed base config as typed values (engine.Config.WithParams), with no
// YAML written or read, and a relative "file:" dense model resolved as
// ParseConfig resolves the rendered file's (against "/"). It is what
// `tune serve` reads from the config file rendered for params (Describe),
// for every trial it accepts; it is stricter than that YAML in a few
// corners experiment files cannot reach, which it refuses: null, 100.5
// for an integer, a number for a string, engine keys that are no
// parameter, strings that are not UTF-8 (which YAML cannot always write).
// Problems name the parameter ("depth: must be <= 10000 (got 20000)").
func (f *Factory) Config(params map[string]any) (engine.Config, error) {
	if name, ok := invalidUTF8(params); ok {
		return engine.Config{}, fmt.Errorf("%s: a string that is not UTF-8", name)
	}
	cfg, err := f.cfg.WithParams(params)
	if err != nil {
		return engine.Config{}, err
	}
	if p, ok := strings.CutPrefix(cfg.Dense.Model, "file:"); ok && p != "" && !filepath.IsAbs(p) {
		cfg.Dense.Model = "file:" + filepath.Join("/", p)
	}
	return cfg, nil
}

// invalidUTF8 returns the first parameter, by name, holding a string that
// is not valid UTF-8 (experiment files decode to nothing else).
func invalidUTF8(params map[string]any) (string, bool) {
	names := slices.Sorted(maps.Keys(params))
	for _, name := range names {
		var list []string
		switch x := params[name].(type) {
		case string:
			list = []string{x}
		case []string:
			list = x
		case []any:
			for _, e := range x {
				if s, ok := e.(string); ok {
					list = append(list, s)
				}
			}
		}
		for _, s := range list {
			if !utf8.ValidString(s) {
				return name, true
			}
		}
	}
	return "", false
}

// Replica returns the factory of a replica whose engine caches its indexes
// in dir/cache and keeps its files in dir.
func (f *Factory) Replica(dir string) backend.Factory {
	base := make(map[string]any, len(f.base))
	for k, v := range f.base {
		base[k] = v
	}
	base["cache_dir"] = filepath.Join(dir, "cache")
	r := newFactory(f.o, base)
	r.cfg = f.cfg
	r.cfg.CacheDir = base["cache_dir"].(string)
	return r
}

// Open returns the process backend running `tune serve` on its own
// loopback port with its config, ready file and log in dir.
func (f *Factory) Open(dir string, _ io.Writer) (backend.Backend, error) {
	if c, ok := f.base["cache_dir"].(string); ok {
		if err := os.MkdirAll(c, 0o755); err != nil {
			return nil, fmt.Errorf("cache directory: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	log, err := os.OpenFile(filepath.Join(dir, "serve.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return process.New(process.Options{
		Command:      serveCommand(f.o.Exe),
		ConfigPath:   filepath.Join(dir, "engine.yaml"),
		ReadyFile:    filepath.Join(dir, "ready"),
		Render:       func(p map[string]any) ([]byte, error) { return f.render(p) },
		Dial:         dial,
		StartTimeout: f.o.StartTimeout,
		StopTimeout:  f.o.StopTimeout,
		Settle:       f.o.Settle,
		Log:          f.redact(log),
		Environ:      f.o.Environ,
	})
}

func serveCommand(exe string) []string {
	// --no-query-log: a production config's query log records users'
	// searches, never the tuner's trials and checks.
	return []string{exe, "serve", "--config", "{config}", "--listen", "127.0.0.1:0", "--ready-file", "{ready_file}", "--no-query-log"}
}

func dial(addr string) (backend.Searcher, error) { return client.New("http://" + addr) }

func (f *Factory) redact(w io.Writer) io.Writer {
	if f.o.Redact == nil {
		return w
	}
	return f.o.Redact(w)
}

// Verify starts `tune serve` on the production config, checks it and
// stops it again: the tuner does not own the production service, it proves
// the config serves.
func (f *Factory) Verify(config, scratch string, log io.Writer, check func(context.Context, backend.Searcher) error) (func(context.Context) error, error) {
	return Verify(f.o, config, scratch, log, check)
}

// Verify is Factory.Verify for options o without a base config (a
// promotion needs only the executable and the timeouts).
func Verify(o Options, config, scratch string, log io.Writer, check func(context.Context, backend.Searcher) error) (func(context.Context) error, error) {
	return process.Verifier(process.Options{
		Command:      serveCommand(o.Exe),
		ConfigPath:   config,
		ReadyFile:    filepath.Join(scratch, "ready"),
		Render:       func(map[string]any) ([]byte, error) { return nil, errors.New("not used") },
		Dial:         dial,
		StartTimeout: o.StartTimeout,
		StopTimeout:  o.StopTimeout,
		Log:          log,
		Environ:      o.Environ,
	}, check)
}

// Fingerprint is a trial's index fingerprint (backend.Fingerprinter): a
// hash of the chunks `tune serve` would index for it (engine.
// ChunksFingerprint over the corpus, read once) and of the rest of its
// configuration, defaults applied (engine.Config.WithParams on the parsed
// base config). Trials whose chunk settings cut the corpus alike and whose
// other settings are equal get equal fingerprints, whatever the chunk
// settings say and whether they set them or leave the defaults.
func (f *Factory) Fingerprint(params map[string]any) (string, error) {
	cfg, err := f.cfg.WithParams(params)
	if err != nil {
		return "", err
	}
	f.chunksMu.Lock()
	defer f.chunksMu.Unlock()
	chunks, ok := f.chunks[cfg.Chunk]
	if !ok {
		// Kept in the engine's cache: the corpus is read only when no
		// sweep has fingerprinted its content under these chunk settings.
		load := func() (*corpus.Corpus, error) {
			if f.corpus == nil {
				loaded, err := corpus.Load(cfg.Corpus)
				if err != nil {
					return nil, err
				}
				f.corpus = loaded
			}
			return f.corpus, nil
		}
		if chunks, err = corpus.CachedChunksFingerprint(cfg.Corpus, cfg.Chunk, cfg.CacheDir, load); err != nil {
			return "", fmt.Errorf("fingerprint: %w", err)
		}
		if f.chunks == nil {
			f.chunks = map[corpus.ChunkConfig]string{}
		}
		f.chunks[cfg.Chunk] = chunks
	}
	// Where the service keeps its files and listens changes no result.
	cfg.Chunk, cfg.CacheDir, cfg.Listen = corpus.ChunkConfig{}, "", ""
	rest, err := json.Marshal(cfg)
	if err != nil {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	sum := sha256.Sum256(append([]byte(chunks+"\x00"), rest...))
	return hex.EncodeToString(sum[:16]), nil
}
