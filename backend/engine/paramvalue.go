package engine

import (
	"slices"

	"github.com/fusiontune/fusiontune/backend"
)

// Param returns the value parameter name takes in c, defaults applied, as
// WithParams takes values (numbers float64, lists []string): the
// query-time settings as FusionSettings has them (backend.FusionValue),
// the others from their fields. False for a name WithParams does not
// know, and for a setting without a value (no min_score; the rerank
// window and weight with the stage off).
func (c Config) Param(name string) (any, bool) {
	if get, ok := paramValues[name]; ok {
		return get(c), true
	}
	switch name {
	case backend.ParamRerankEnabled:
		return c.Rerank.On(), true
	case backend.ParamRerankWindow:
		if c.Rerank.On() {
			return float64(c.Rerank.EffectiveWindow()), true
		}
		return nil, false
	case backend.ParamRerankWeight:
		if c.Rerank.On() {
			return c.Rerank.EffectiveWeight(), true
		}
		return nil, false
	}
	return backend.FusionValue(c.FusionSettings(), name)
}

// paramValues read the parameters that are no fusion setting.
var paramValues = map[string]func(c Config) any{
	backend.ParamPassage:      func(c Config) any { return c.Passage },
	backend.ParamRetrievers:   func(c Config) any { return slices.Clone(c.Retrievers) },
	backend.ParamChunkSize:    func(c Config) any { return float64(c.Chunk.Size) },
	backend.ParamChunkOverlap: func(c Config) any { return float64(c.Chunk.Overlap) },
	backend.ParamDenseModel:   func(c Config) any { return c.Dense.Model },
	backend.ParamBM25K1:       func(c Config) any { return c.BM25.K1 },
	backend.ParamBM25B:        func(c Config) any { return c.BM25.B },
}
