package main

import (
	"strconv"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/tuner"
)

// replayOptions builds the sweep's replay settings from --mode and
// --verify. Replay needs a backend that can resolve a trial's fusion
// settings (the embedded engine, with its explain and per-request fusion
// overrides); other backends run live: --mode replay is refused for them
// and auto means live.
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
	r, ok := f.(backend.FusionResolver)
	if !ok {
		if m == tuner.ModeReplay {
			return nil, usageErrorf("--mode replay: needs a backend kind that replays (embedded, postgres or weaviate; process and http backends run live: use --mode live or auto)")
		}
		return nil, nil
	}
	return &tuner.ReplayOptions{Mode: m, Resolve: r.Fusion, Verify: verify}, nil
}

// verifyUsage documents --verify's default.
var verifyUsage = "replayed trials re-run live through per-request fusion overrides (0: none; the winner is always confirmed by apply + restart); default " + strconv.Itoa(tuner.DefaultVerify)
