package main

import (
	"strconv"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/embedded"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner"
)

// replayOptions builds the sweep's replay settings from --mode and
// --verify. Replay needs the embedded engine (its explain and per-request
// fusion overrides); other backends run live: --mode replay is refused for
// them and auto means live.
func replayOptions(f backend.Factory, mode string, verify int) (*tuner.ReplayOptions, error) {
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
	e, ok := f.(*embedded.Factory)
	if !ok {
		if m == tuner.ModeReplay {
			return nil, usageErrorf("--mode replay: needs backend.kind embedded (process and http backends run live; use --mode live or auto)")
		}
		return nil, nil
	}
	resolve := func(params experiments.Params) (tuner.FusionSettings, error) {
		cfg, err := e.Config(params)
		if err != nil {
			return tuner.FusionSettings{}, err
		}
		return fusionSettings(cfg), nil
	}
	return &tuner.ReplayOptions{Mode: m, Resolve: resolve, Verify: verify}, nil
}

// fusionSettings are a trial's query-time settings exactly as `tune
// serve` reads them: the parsed and defaulted config, with an explicit
// weight for every enabled retriever.
func fusionSettings(cfg engine.Config) tuner.FusionSettings {
	p := cfg.FusionParams()
	w := make(map[string]float64, len(cfg.Retrievers))
	for _, r := range cfg.Retrievers {
		w[r] = p.Weight(r)
	}
	p.Weights = w
	return tuner.FusionSettings{Fusion: p, MinScore: cfg.MinScore, Passage: cfg.Passage}
}

// verifyUsage documents --verify's default.
var verifyUsage = "replayed trials re-run live through per-request fusion overrides (0: none; the winner is always confirmed by apply + restart); default " + strconv.Itoa(tuner.DefaultVerify)
