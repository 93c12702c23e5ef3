package runs

// Notes are the lines printed under the leaderboard's table: the decision
// rule and its intervals, power and MDE, trials with the same results,
// rescoring by a judge and the held-out confirmation (the decision line
// `tune ui` shows on a run's page).
func (lb Leaderboard) Notes() []string { return lb.notes() }
