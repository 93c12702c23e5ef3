package main

// pickUsage says how every command reads a RUN and a TRIAL (resolved by
// runs.Store.Resolve and runs.Leaderboard.Pick).
var pickUsage = usage("pick")
