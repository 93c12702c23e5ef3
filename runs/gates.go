package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// GatesFile holds the quality gates last checked on one of the run's
// trials.
const GatesFile = "gates.json"

// Gates is gates.json: the quality gates (setting gates) checked on one
// trial, written after the sweep checks them on its best trial and by
// `tune gate`.
type Gates struct {
	// Trial is the trial checked, Index its trial index.
	Trial string `json:"trial"`
	Index int    `json:"index"`
	// Pass is true when every gate passed.
	Pass    bool        `json:"pass"`
	Results []GateCheck `json:"results"`
}

// GateCheck is one gate's outcome.
type GateCheck struct {
	Gate string `json:"gate"`
	// Value is the measured value; Measured is false when the trial has
	// no such value (Detail says why), which fails the gate.
	Value    float64 `json:"value"`
	Measured bool    `json:"measured"`
	Pass     bool    `json:"pass"`
	Detail   string  `json:"detail,omitempty"`
}

// Failed returns the checks that did not pass.
func (g Gates) Failed() []GateCheck {
	var out []GateCheck
	for _, c := range g.Results {
		if !c.Pass {
			out = append(out, c)
		}
	}
	return out
}

// String renders a check as "PASS Recall@3 >= 0.80 (0.8512)".
func (c GateCheck) String() string {
	status := "PASS"
	if !c.Pass {
		status = "FAIL"
	}
	if !c.Measured {
		return fmt.Sprintf("%s %s (%s)", status, c.Gate, c.Detail)
	}
	return fmt.Sprintf("%s %s (%.4f)", status, c.Gate, c.Value)
}

// WriteGates writes gates.json atomically.
func (r *Run) WriteGates(g Gates) error { return r.WriteJSON(GatesFile, g) }

// ReadGates reads gates.json; ok is false when no gates were checked on
// the run.
func (r *Run) ReadGates() (g Gates, ok bool, err error) {
	data, err := os.ReadFile(filepath.Join(r.Dir, GatesFile))
	if errors.Is(err, os.ErrNotExist) {
		return Gates{}, false, nil
	}
	if err != nil {
		return Gates{}, false, fmt.Errorf("runs: %w", err)
	}
	if err := json.Unmarshal(data, &g); err != nil {
		return Gates{}, false, fmt.Errorf("runs: %s: %w", filepath.Join(r.Dir, GatesFile), err)
	}
	return g, true, nil
}
