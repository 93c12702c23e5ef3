package verdict

import (
	"fmt"

	"github.com/fusiontune/fusiontune/runs"
)

// RequireRobustSetting is the promotion-policy setting that refuses a
// winner whose lead depends on the judge.
const RequireRobustSetting = "promotion.require_robust_winner"

// JudgeDependent amends the verdict v when the winner depends on the
// judge (why says how, e.g. `under file:b.qrels "x" leads`; "" leaves v
// as it is). A verdict to ship becomes, with require, a verdict to keep
// the baseline that says why; without it, the line gains a warning.
func JudgeDependent(v runs.Verdict, why string, require bool) runs.Verdict {
	if why == "" {
		return v
	}
	shipping := v.Kind == runs.VerdictShip || v.Kind == runs.VerdictSingle
	if require && shipping {
		return runs.Verdict{Kind: runs.VerdictKeep, Trial: v.Against, Against: v.Against, Best: v.Trial, Confirmed: v.Confirmed,
			Line: fmt.Sprintf("keep the baseline %q: the best trial %q depends on the judge (%s), and %s requires a winner every judge agrees on",
				v.Against, v.Trial, why, RequireRobustSetting)}
	}
	v.Line += fmt.Sprintf("; the winner depends on the judge: %s", why)
	return v
}
