package runs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Notes are the lines printed under the leaderboard's table: the decision
// rule and its intervals, power and MDE, trials with the same results,
// rescoring by a judge and the held-out confirmation (the decision line
// `tune ui` shows on a run's page).
func (lb Leaderboard) Notes() []string { return lb.notes() }

// untestable matches the per-trial caveat the analysis records for a
// comparison with too few non-zero pairs ("TRIAL vs BASE: too few non-zero
// pairs: N (need M)").
var untestable = regexp.MustCompile(`^(.+) vs (.+): too few non-zero pairs: (\d+) \(need (\d+)\)$`)

// maxUntestableLines is how many of those caveats against one reference
// are printed one per line; more are folded into one.
const maxUntestableLines = 3

// shownWarnings are the warnings as the text and Markdown leaderboards
// print them: the caveats of more than maxUntestableLines trials that
// cannot be tested against the same reference folded into one line at the
// first one's place (leaderboard.json keeps each), so that a small golden
// set's eleven identical lines do not bury the others.
func (lb Leaderboard) shownWarnings() []string {
	type group struct {
		first        int
		trials       []string
		lo, hi, need int
	}
	groups := map[string]*group{}
	for i, w := range lb.Warnings {
		m := untestable.FindStringSubmatch(w)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[3])
		need, _ := strconv.Atoi(m[4])
		key := m[2] + "\x00" + m[4]
		g := groups[key]
		if g == nil {
			g = &group{first: i, lo: n, hi: n, need: need}
			groups[key] = g
		}
		g.trials = append(g.trials, m[1])
		g.lo, g.hi = min(g.lo, n), max(g.hi, n)
	}
	var out []string
	for i, w := range lb.Warnings {
		m := untestable.FindStringSubmatch(w)
		if m == nil {
			out = append(out, w)
			continue
		}
		g := groups[m[2]+"\x00"+m[4]]
		if len(g.trials) <= maxUntestableLines {
			out = append(out, w)
			continue
		}
		if i != g.first {
			continue
		}
		pairs := strconv.Itoa(g.lo)
		if g.hi != g.lo {
			pairs += "–" + strconv.Itoa(g.hi)
		}
		out = append(out, fmt.Sprintf("%d trials vs %s: too few non-zero pairs to test (%s each, need %d): %s and %d more",
			len(g.trials), m[2], pairs, g.need, strings.Join(g.trials[:2], ", "), len(g.trials)-2))
	}
	return out
}
