package settings

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/fusiontune/fusiontune/tuner/dataset"
	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/embedded"
	"github.com/fusiontune/fusiontune/backend/kinds"
	"github.com/fusiontune/fusiontune/backend/render"
	"github.com/fusiontune/fusiontune/backend/weaviate"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/promote"
)

// ProductionConfig returns how the embedded kind installs a trial's
// recorded engine config as the production config (embedded.Portable):
// the corpus and cache paths the user wrote relative become relative to
// the production config's directory, and the tuner's own index cache
// (cacheDir) is left out. The weaviate kind installs weaviate.ProductionFile
// (the trial's settings with the production class). Other kinds install
// the recorded bytes as they are (nil).
func (s *Settings) ProductionConfig(cacheDir string) func([]byte) ([]byte, error) {
	if s.Backend.Kind == KindWeaviate {
		prefix := s.Backend.Weaviate.ClassPrefix
		return func(config []byte) ([]byte, error) { return weaviate.ProductionFile(config, prefix) }
	}
	if s.Backend.Kind != KindEmbedded {
		return nil
	}
	var relative []string
	for _, key := range embedded.PathKeys {
		if p, ok := s.userPath(key); ok && p != "" && !filepath.IsAbs(p) {
			relative = append(relative, key)
		}
	}
	return func(config []byte) ([]byte, error) {
		return embedded.Portable(config, s.Backend.Config, relative, cacheDir)
	}
}

// userPath is the path the user wrote for the engine config key (dotted),
// from where the embedded kind takes it: backend.engine over
// backend.config's file, over dataset.corpus for corpus.path. ok is false
// when the user wrote none. A relative path is returned as written (see
// ResolvePaths).
func (s *Settings) userPath(key string) (string, bool) {
	written := func(settingsKey, v string) string {
		if raw, ok := s.Written[settingsKey]; ok {
			return raw
		}
		return v
	}
	if p, ok := lookupString(s.Backend.Engine, key); ok {
		return written("backend.engine."+key, p), true
	}
	if s.Backend.Config != "" {
		if data, err := os.ReadFile(s.Backend.Config); err == nil {
			if m, err := render.ReadYAMLMap(data); err == nil {
				if p, ok := lookupString(m, key); ok {
					return p, true
				}
			}
		}
	}
	if key == "corpus.path" && s.Dataset.Corpus != "" {
		return written("dataset.corpus", s.Dataset.Corpus), true
	}
	return "", false
}

// lookupString returns the string at the dotted key of nested maps m.
func lookupString(m map[string]any, key string) (string, bool) {
	if m == nil {
		return "", false
	}
	m, last := engineLeaf(m, key)
	v, ok := m[last].(string)
	return v, ok
}

// ProductionVerifier returns the promotion's verifier for the settings'
// backend kind (kinds.Verify on this process, NewHost with r; the
// services' output to log). A kind's input error is placed where the
// settings set the value and becomes a inputerr.Error.
func (s *Settings) ProductionVerifier(r *runs.Redactor, log io.Writer) promote.VerifyFunc {
	return func(config, dir string, check func(context.Context, backend.Searcher) error) (func(context.Context) error, error) {
		h, err := NewHost(r)
		if err != nil {
			return nil, err
		}
		o, err := s.Backend.Options(s.vectorsCorpus(), h)
		if err != nil {
			return nil, err
		}
		stop, err := kinds.Verify(o, config, dir, log, check)
		var ie *kinds.InputError
		if errors.As(err, &ie) {
			if err = ie.Err; s.Src != nil {
				err = s.Src.Place(err)
			}
			return nil, &inputerr.Error{Err: err}
		}
		return stop, err
	}
}

// promotionPolicy is Policy with, under promotion.require_robust_winner,
// the check that the winner does not depend on the judge (tune judge
// robust's analysis with its defaults).
func (s *Settings) promotionPolicy(seed int64, r *runs.Redactor, log io.Writer) promote.Policy {
	p := s.Policy(seed)
	if !s.Promotion.RequireRobustWinner {
		return p
	}
	p.JudgeDependence = func(ctx context.Context, run *runs.Run) (string, string, error) {
		ds, err := s.runDataset(run, log)
		if err != nil {
			return "", "", err
		}
		sc, err := s.Score.Scorer(ds.Golden.Scale)
		if err != nil {
			return "", "", &inputerr.Error{Err: err}
		}
		url := s.JudgeStoreURL()
		r.AddURLPassword(url)
		rep, err := judging.Robust(ctx, run, url, judging.RobustOptions{Gold: scoring.JudgmentsOf(ds.Queries), Scorer: sc, MaxGrade: ds.Golden.Scale.Max, Seed: 1})
		if err != nil {
			return "", "", err
		}
		return rep.Winner, rep.DependsOn(), nil
	}
	return p
}

// PromoteConfig is the settings' part of a promotion of a trial of run
// (promote.Config: the production config, the policy seeded by the run,
// the smoke evaluation on the settings' golden set, the verifier and the
// install): the caller adds the store, the entry and Force.
func (s *Settings) PromoteConfig(run *runs.Run, r *runs.Redactor, log io.Writer) promote.Config {
	return promote.Config{
		ConfigPath: s.Backend.Config, Run: run, Policy: s.promotionPolicy(run.Manifest.Seed, r, log), Eval: s.Eval.Options(),
		NewVerify: s.ProductionVerifier(r, log), Log: log, Install: s.ProductionConfig(CachePath("engine")),
		Golden: func() ([]scoring.Query, scoring.Scorer, error) {
			ds, err := s.runDataset(run, log)
			if err != nil {
				return nil, nil, err
			}
			scorer, err := s.Score.Scorer(ds.Golden.Scale)
			if err != nil {
				return nil, nil, &inputerr.Error{Err: err}
			}
			return ds.Queries, scorer, nil
		},
	}
}

// runDataset opens the golden set run was scored with, for the smoke
// evaluation of its promotion: the settings' (dataset.path) when its
// digest is the run's, else the copy the run keeps of it (golden.EXT in
// the run directory, read as dataset.path's format, split and corpus).
// With neither, it is an input error naming both digests.
func (s *Settings) runDataset(run *runs.Run, log io.Writer) (*dataset.Dataset, error) {
	ds, err := s.OpenDataset()
	want := run.Manifest.GoldenHash
	if err == nil && (want == "" || ds.Golden.Hash == want) {
		return ds, nil
	}
	d := s.Dataset
	if ds != nil {
		d = ds.Config
	}
	snapshot := filepath.Join(run.Dir, "golden"+filepath.Ext(d.Path))
	if st, serr := os.Stat(snapshot); serr != nil || st.IsDir() {
		if err != nil {
			return nil, err
		}
		return nil, &inputerr.Error{Err: fmt.Errorf("dataset.path: the golden set %s (sha256 %s) is not the one run %s was scored with (sha256 %s), and the run keeps no copy of it: point dataset.path at that golden set",
			d.Path, ds.Golden.Hash, run.ID(), want)}
	}
	d.Path = snapshot
	rds, rerr := dataset.Open(d, s.EngineCorpusPath(), s.cache())
	if rerr != nil {
		return nil, fmt.Errorf("the golden set run %s was scored with (%s): %w", run.ID(), snapshot, rerr)
	}
	if rds.Golden.Hash != want {
		return nil, fmt.Errorf("the golden set run %s keeps (%s) has sha256 %s, not the %s it recorded", run.ID(), snapshot, rds.Golden.Hash, want)
	}
	fmt.Fprintf(log, "note: the smoke evaluation uses the golden set run %s was scored with (%s): dataset.path's has changed since\n", run.ID(), snapshot)
	return rds, nil
}

// vectorsCorpus is the corpus a promotion of the http or process kind fits
// its query vectors on when backend.vectors names a model and no
// backend.vectors.corpus: the dataset's, as the sweep did ("" for other
// kinds, which read theirs from the production config, or when the
// dataset cannot be opened: the kind then says what it lacks).
func (s *Settings) vectorsCorpus() string {
	if (s.Backend.Kind != KindHTTP && s.Backend.Kind != KindProcess) || s.Backend.Vectors.Model == "" || s.Backend.Vectors.Corpus != "" {
		return ""
	}
	if s.Dataset.Corpus != "" {
		return s.Dataset.Corpus
	}
	ds, err := s.OpenDataset()
	if err != nil {
		return ""
	}
	return ds.Corpus
}
