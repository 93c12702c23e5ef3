package runs

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// ErrNoRuns is returned when a runs directory holds no run.
var ErrNoRuns = errors.New("no runs recorded")

// ErrNotFound is matched (errors.Is) by the errors saying that a run or
// a trial does not exist; their messages are their own.
var ErrNotFound = errors.New("not found")

// notFound marks err as ErrNotFound, its message unchanged.
type notFound struct{ error }

func (e notFound) Is(target error) bool { return target == ErrNotFound }
func (e notFound) Unwrap() error        { return e.error }

// File names inside a run directory.
const (
	ManifestFile        = "manifest.json"
	SettingsFile        = "settings.json"
	LeaderboardJSONFile = "leaderboard.json"
	LeaderboardMDFile   = "leaderboard.md"
	LeaderboardCSVFile  = "leaderboard.csv"
	TrialsDir           = "trials"
	PromotionsFile      = "promotions.jsonl"
)

// Store is a runs directory: one subdirectory per run, named
// <UTC timestamp>-<random id>, plus promotions.jsonl.
type Store struct {
	Dir string
	// Redact and Derive, when set, are given to every run the store
	// creates or loads.
	Redact *Redactor
	Derive Deriver
}

// Open returns the store at dir, creating the directory if needed.
func Open(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("runs: empty runs directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("runs: create %s: %w", dir, err)
	}
	return &Store{Dir: dir}, nil
}

// Manifest describes a run. It is the only file of a run that holds
// timestamps, so that everything else is byte-identical across repeats.
type Manifest struct {
	ID          string    `json:"id"`
	Started     time.Time `json:"started"`
	Finished    time.Time `json:"finished,omitzero"`
	Status      string    `json:"status"` // running, analysing (statistics after the last trial), done, failed, interrupted
	Experiments string    `json:"experiments"`
	GoldenHash  string    `json:"golden_hash"`
	Backend     string    `json:"backend"`
	Trials      int       `json:"trials"`
	Restarts    int       `json:"restarts"`
	Tool        string    `json:"tool"`
	Args        []string  `json:"args,omitempty"`
	Error       string    `json:"error,omitempty"`
	Seed        int64     `json:"seed"`
	Timings     *Timings  `json:"timings,omitempty"`

	// ExperimentName is the experiment file's name (its name key, else
	// its file name), for listings.
	ExperimentName string `json:"experiment_name,omitempty"`
	// Branch is the version-control branch the run was made on (tune
	// check-quality records it for --against latest-on-branch).
	Branch string `json:"branch,omitempty"`
}

// Create makes a new run directory and writes its manifest.
func (s *Store) Create(m Manifest, now time.Time) (*Run, error) {
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("runs: random id: %w", err)
	}
	id := now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
	dir := filepath.Join(s.Dir, id)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("runs: create run: %w", err)
	}
	if err := os.Mkdir(filepath.Join(dir, TrialsDir), 0o755); err != nil {
		return nil, fmt.Errorf("runs: create run: %w", err)
	}
	m.ID = id
	m.Started = now.UTC()
	if m.Status == "" {
		m.Status = "running"
	}
	r := &Run{Dir: dir, Manifest: m, Redact: s.Redact, Derive: s.Derive}
	if err := r.SaveManifest(); err != nil {
		return nil, err
	}
	return r, nil
}

// Resolve finds a run by id, unique id prefix or path; "" or "latest" means
// the most recent run. A path (one holding a separator, or naming a
// directory when no run id matches) may lead to any run directory, inside
// the store or not: reading a run the user points at is harmless, and
// commands that write into a run check Contains first.
func (s *Store) Resolve(ref string) (*Run, error) {
	r, err := s.resolve(ref)
	if r != nil {
		r.Redact, r.Derive = s.Redact, s.Derive
	}
	return r, err
}

func (s *Store) resolve(ref string) (*Run, error) {
	if looksLikePath(ref) {
		return loadRunDir(ref)
	}
	ids, err := s.ids()
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if ref == "" || ref == "latest" {
		if len(ids) == 0 {
			return nil, fmt.Errorf("runs: %s: %w", s.Dir, ErrNoRuns)
		}
		return Load(filepath.Join(s.Dir, ids[len(ids)-1]))
	}
	var match []string
	for _, id := range ids {
		if id == ref {
			return Load(filepath.Join(s.Dir, id))
		}
		if strings.HasPrefix(id, ref) {
			match = append(match, id)
		}
	}
	switch len(match) {
	case 0:
		if st, err := os.Stat(ref); err == nil && st.IsDir() {
			return loadRunDir(ref) // a run directory named relative to the working directory
		}
		if len(ids) == 0 {
			return nil, fmt.Errorf("runs: no run %q: %s: %w", ref, s.Dir, ErrNoRuns)
		}
		return nil, notFound{fmt.Errorf("runs: no run %q in %s", ref, s.Dir)}
	case 1:
		return Load(filepath.Join(s.Dir, match[0]))
	default:
		return nil, fmt.Errorf("runs: %q matches %d runs (%s): give more of the id", ref, len(match), strings.Join(match, ", "))
	}
}

// looksLikePath reports whether a run reference is a path rather than an
// id: it holds a separator or is "." or "..".
func looksLikePath(ref string) bool {
	return ref == "." || ref == ".." || strings.ContainsAny(ref, `/\`)
}

// loadRunDir loads the run directory at path, refusing a directory that
// is not a run (no manifest.json).
func loadRunDir(path string) (*Run, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("runs: no run directory %q: %w", path, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("runs: %q is not a run directory (a file)", path)
	}
	if _, err := os.Stat(filepath.Join(path, ManifestFile)); err != nil {
		return nil, fmt.Errorf("runs: %q is not a run directory (no %s)", path, ManifestFile)
	}
	return Load(path)
}

// Contains reports whether r is a run directory directly inside the store
// (symbolic links resolved): commands that write into a run (resume)
// accept only those, so that the store's lock covers the writing.
func (s *Store) Contains(r *Run) bool {
	real, err := filepath.EvalSymlinks(r.Dir)
	if err == nil {
		real, err = filepath.Abs(real)
	}
	root, rerr := filepath.EvalSymlinks(s.Dir)
	if rerr == nil {
		root, rerr = filepath.Abs(root)
	}
	return err == nil && rerr == nil && filepath.Dir(real) == root
}

// ids lists the run directories, oldest first.
func (s *Store) ids() ([]string, error) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, fmt.Errorf("runs: list %s: %w", s.Dir, err)
	}
	var ids []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(s.Dir, e.Name(), ManifestFile)); err == nil {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)
	s.orderSameSecond(ids)
	return ids, nil
}

// orderSameSecond orders runs whose ids start in the same second (ids are
// unique to the second, then random) by their manifests' start times, so
// that "latest" and listings are right however fast runs follow each
// other. Only such runs' manifests are read.
func (s *Store) orderSameSecond(ids []string) {
	second := func(id string) string { before, _, _ := strings.Cut(id, "-"); return before }
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && second(ids[j]) == second(ids[i]) {
			j++
		}
		if j-i > 1 {
			started := make(map[string]time.Time, j-i)
			for _, id := range ids[i:j] {
				if r, err := Load(filepath.Join(s.Dir, id)); err == nil {
					started[id] = r.Manifest.Started
				}
			}
			sort.SliceStable(ids[i:j], func(a, b int) bool { return started[ids[i+a]].Before(started[ids[i+b]]) })
		}
		i = j
	}
}

// List loads every run, oldest first. Runs whose files cannot be read are
// returned with their error in Run.LoadErr rather than failing the listing.
func (s *Store) List() ([]*Run, error) {
	ids, err := s.ids()
	if err != nil {
		return nil, err
	}
	out := make([]*Run, 0, len(ids))
	for _, id := range ids {
		r, err := Load(filepath.Join(s.Dir, id))
		if err != nil {
			r = &Run{Dir: filepath.Join(s.Dir, id), Manifest: Manifest{ID: id}, LoadErr: err}
		}
		out = append(out, r)
	}
	return out, nil
}

// Load reads the run at dir.
func Load(dir string) (*Run, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("runs: load %s: %w", dir, err)
	}
	r := &Run{Dir: dir}
	if err := json.Unmarshal(data, &r.Manifest); err != nil {
		return nil, fmt.Errorf("runs: %s: %w", filepath.Join(dir, ManifestFile), err)
	}
	return r, nil
}
