// Package replay is what a replay stores and derives from: a Collection of
// each query's per-retriever candidate lists (collected once per replay
// group by the tuner's collection pass), the Replayer that fuses and
// scores them under a trial's query-time settings exactly as the engine
// would, the Facts the statistics need of a replayed trial, the
// collection file (Store, Load, Read) and the Deriver, through which
// runs.Run.QueryResults answers for a replayed trial that stores only its
// summary. ReplayLists is the microscope's replay of one query.
//
// The replay evaluator, the collection passes and verification are the
// run lifecycle's (package tuner).
//
// Imports of ours: backend, backend/fusion, backend/rerank, experiments,
// metrics, runs, tuner/pass, tuner/scoring.
package replay
