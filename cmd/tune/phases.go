package main

import (
	"time"

	"github.com/fusiontune/fusiontune/tuner/pass"
)

// phasesEnv turns on a sweep's phase notes (pass.Phases): set to anything
// but "" or "0", `tune sweep` writes after its time: line when each phase
// of reading the inputs and of the run ended and what it took, to find
// where the tuner's overhead goes. A debugging aid, not a setting.
const phasesEnv = "TUNE_PHASES"

// phasesOf returns the phase notes from start when getenv(phasesEnv) asks
// for them, else nil (no notes, no cost).
func phasesOf(getenv func(string) string, start time.Time) *pass.Phases {
	if v := getenv(phasesEnv); v == "" || v == "0" {
		return nil
	}
	return pass.NewPhases(start)
}
