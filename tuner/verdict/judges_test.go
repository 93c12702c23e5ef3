package verdict_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/verdict"
)

func TestJudgeDependent(t *testing.T) {
	ship := runs.Verdict{Kind: runs.VerdictShip, Trial: "A", Against: "base", Line: `ship "A": primary +0.0200 [+0.0100, +0.0300] over the baseline "base", significant`}
	keep := runs.Verdict{Kind: runs.VerdictKeep, Trial: "base", Against: "base", Best: "A", Line: `keep the baseline "base": no trial scores higher`}
	why := `under file:y "B" leads`
	tests := []struct {
		name    string
		v       runs.Verdict
		why     string
		require bool
		kind    string
		line    string
	}{
		{"robust", ship, "", true, runs.VerdictShip, ship.Line},
		{"warned", ship, why, false, runs.VerdictShip, ship.Line + `; the winner depends on the judge: under file:y "B" leads`},
		{"refused", ship, why, true, runs.VerdictKeep, `keep the baseline "base": the best trial "A" depends on the judge (under file:y "B" leads), and promotion.require_robust_winner requires a winner every judge agrees on`},
		{"kept anyway", keep, why, true, runs.VerdictKeep, keep.Line + `; the winner depends on the judge: under file:y "B" leads`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := verdict.JudgeDependent(tt.v, tt.why, tt.require)
			if got.Kind != tt.kind || got.Line != tt.line {
				t.Errorf("got %s %q\nwant %s %q", got.Kind, got.Line, tt.kind, tt.line)
			}
		})
	}
}
