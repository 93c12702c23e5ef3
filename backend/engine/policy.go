package engine

import (
	"fmt"
	"strings"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

// loadPolicy reads the policy cfg.Fusion.Policy names and checks it
// against cfg: its arms weigh enabled retrievers only and rank the unit
// cfg ranks (passage), and its depths stay within MaxDepth.
func loadPolicy(cfg Config) (*fusion.Policy, error) {
	p, err := fusion.LoadPolicy(cfg.Fusion.Policy)
	if err != nil {
		return nil, fmt.Errorf("fusion.policy: %w", err)
	}
	var probs []string
	if p.ReadDepth() > MaxDepth {
		probs = append(probs, fmt.Sprintf("depth: must be <= %d (got %d)", MaxDepth, p.ReadDepth()))
	}
	for i, a := range p.Arms {
		for name := range a.Fusion.Weights {
			if !cfg.Has(name) {
				probs = append(probs, fmt.Sprintf("arms[%d].Fusion.weights.%s: not an enabled retriever (retrievers: %s)", i, name, strings.Join(cfg.Retrievers, ", ")))
			}
		}
		for name := range a.Floors {
			if !cfg.Has(name) {
				probs = append(probs, fmt.Sprintf("arms[%d].Floors.%s: not an enabled retriever", i, name))
			}
		}
		if a.Passage != cfg.Passage {
			probs = append(probs, fmt.Sprintf("arms[%d].Passage: %v, but the config ranks passage: %v", i, a.Passage, cfg.Passage))
		}
	}
	if len(probs) > 0 {
		return nil, fmt.Errorf("fusion.policy: %s: %w: %s", cfg.Fusion.Policy, fusion.ErrPolicy, strings.Join(probs, "; "))
	}
	return p, nil
}

// Policy returns the fusion policy the engine applies (nil: none).
func (e *Engine) Policy() *fusion.Policy { return e.policy }
