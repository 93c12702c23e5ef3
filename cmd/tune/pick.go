package main

// pickUsage says how every command reads a RUN and a TRIAL (resolved by
// runs.Store.Resolve and runs.Leaderboard.Pick).
const pickUsage = `RUN is latest, a run id or a unique prefix of one, or the path of a run
directory (anywhere). TRIAL is #N (the trial ranked N on the leaderboard),
a trial's name or a unique prefix of one; without TRIAL, the run's best.`
