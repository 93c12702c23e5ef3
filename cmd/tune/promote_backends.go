package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/client"
	"github.com/fusiontune/fusiontune/backend/httpbackend"
	"github.com/fusiontune/fusiontune/backend/process"
)

// productionVerifier returns a promotion's Verify for the settings' backend
// kind: bring the service up on the production config now on disk (config,
// absolute), wait until it is healthy and run check against it.
//   - embedded: start `tune serve` on it, check, stop it again (the tuner
//     does not own the production service; it proves the config serves);
//   - process: the same with the user's command;
//   - http: run the restart command, wait healthy, check; the service stays
//     up on the new config.
//
// dir is a scratch directory the caller removes.
func productionVerifier(s *settings, config, dir string, check func(context.Context, backend.Searcher) error, stderr io.Writer) (func(context.Context) error, error) {
	unused := func(map[string]any) ([]byte, error) { return nil, errors.New("not used") }
	switch s.Backend.Kind {
	case kindHTTP:
		searcher, err := newSearcher(s.Backend)
		if err != nil {
			return nil, inputError(err)
		}
		hb, err := httpbackend.New(httpbackend.Options{
			ConfigPath: config, Render: unused, Restart: s.Backend.Restart, Search: searcher,
			RestartTimeout: s.Backend.StartTimeout, ReadyTimeout: s.Backend.StartTimeout, Settle: s.Backend.Settle, Log: stderr,
		})
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context) error {
			if err := hb.Restart(ctx); err != nil {
				return err
			}
			if err := hb.Ready(ctx); err != nil {
				return err
			}
			return check(ctx, hb)
		}, nil
	case kindProcess:
		searcher, err := newSearcher(s.Backend)
		if err != nil {
			return nil, inputError(err)
		}
		return ownedVerifier(process.Options{
			Command: s.Backend.Command, ConfigPath: config, Render: unused,
			Dial:         func(string) (backend.Searcher, error) { return searcher, nil },
			StartTimeout: s.Backend.StartTimeout, StopTimeout: s.Backend.StopTimeout, Settle: s.Backend.Settle, Log: stderr,
		}, check)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return ownedVerifier(process.Options{
		Command:      []string{exe, "serve", "--config", "{config}", "--listen", "127.0.0.1:0", "--ready-file", "{ready_file}"},
		ConfigPath:   config,
		ReadyFile:    filepath.Join(dir, "ready"),
		Render:       unused,
		Dial:         func(addr string) (backend.Searcher, error) { return client.New("http://" + addr) },
		StartTimeout: s.Backend.StartTimeout,
		StopTimeout:  s.Backend.StopTimeout,
		Log:          stderr,
	}, check)
}

// ownedVerifier starts the service of o as a child, checks it and stops it.
func ownedVerifier(o process.Options, check func(context.Context, backend.Searcher) error) (func(context.Context) error, error) {
	pb, err := process.New(o)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		defer pb.Close()
		if err := pb.Restart(ctx); err != nil {
			return err
		}
		if err := pb.Ready(ctx); err != nil {
			return err
		}
		return check(ctx, pb)
	}, nil
}
