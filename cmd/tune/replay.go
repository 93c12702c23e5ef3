package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner"
)

// replayOptions builds the sweep's replay settings from --mode and
// --verify. Replay needs the embedded engine (its explain and per-request
// fusion overrides); other backends run live: --mode replay is refused for
// them and auto means live.
func replayOptions(eng backendSetup, mode string, verify int, log io.Writer) (*tuner.ReplayOptions, error) {
	m, err := tuner.ParseMode(mode)
	if err != nil {
		return nil, usageErrorf("--mode: %v", err)
	}
	if verify < 0 {
		return nil, usageErrorf("--verify: must be >= 0 (got %d)", verify)
	}
	if verify == 0 {
		verify = -1 // none through overrides; the winner is still confirmed
	}
	e, ok := eng.(embeddedBackend)
	if !ok {
		if m == tuner.ModeReplay {
			return nil, usageErrorf("--mode replay: needs backend.kind embedded (process and http backends run live; use --mode live or auto)")
		}
		return nil, nil
	}
	return &tuner.ReplayOptions{Mode: m, Resolve: e.fusionSettings, Verify: verify, Log: log}, nil
}

// fusionSettings resolves a trial's query-time settings exactly as `tune
// serve` will read them: the rendered engine config, parsed and defaulted,
// with an explicit weight for every enabled retriever.
func (e *embeddedSetup) fusionSettings(params experiments.Params) (tuner.FusionSettings, error) {
	data, err := e.render(params)
	if err != nil {
		return tuner.FusionSettings{}, fmt.Errorf("render engine config: %w", err)
	}
	cfg, err := engine.ParseConfig(data, "trial config", "/")
	if err != nil {
		return tuner.FusionSettings{}, err
	}
	p := cfg.FusionParams()
	w := make(map[string]float64, len(cfg.Retrievers))
	for _, r := range cfg.Retrievers {
		w[r] = p.Weight(r)
	}
	p.Weights = w
	return tuner.FusionSettings{Fusion: p, MinScore: cfg.MinScore, Passage: cfg.Passage}, nil
}

// verifyUsage documents --verify's default.
var verifyUsage = "replayed trials re-run live through per-request fusion overrides (0: none; the winner is always confirmed by apply + restart); default " + strconv.Itoa(tuner.DefaultVerify)
