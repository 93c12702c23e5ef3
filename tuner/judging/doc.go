// Package judging is the root of the judging subtree: judges
// (tuner/judging/judge: people, a qrels file; judge/llm: an
// OpenAI-compatible LLM), the label store (tuner/judging/labels), pools
// (tuner/judging/pool), implicit judgments from query logs
// (tuner/judging/harvest), and here the flows over them. JudgeLoop judges
// a run's leading trials' unjudged hits as it tunes and scores every trial
// again; PoolRun pools a recorded run's trials for judging.
//
// It also holds the flows of the `tune judge` commands over a
// dataset and its label store, as plain Go calls: an Env (the dataset, its
// id in the store, how to open the store and build the LLM judge); Run
// judges a pool's pairs with the LLM judge, a qrels file or an ensemble
// of judges (or, dry, says what that would cost); Export writes the pairs for people to label;
// Import appends labelled files; Labels writes the store's labels; Agree
// compares judges with the reference; Pool and HarvestPool build judging
// pools, DecisionPool the pool of the pairs that can change a run's
// promotion decision; Robust checks that a run's winner does not
// depend on the judge. Results carry their own wording (WriteText and friends), so a
// command only maps settings to a request, calls, and prints.
//
// Errors that are the user's are *inputerr.Error; a judge spec that is
// neither llm nor file:PATH wraps judge.ErrSpec.
//
// Imports of ours: internal/atomicfile, internal/inputerr, metrics/stats,
// runs, tuner/dataset, tuner/judging/decision, tuner/judging/harvest,
// tuner/judging/judge, tuner/judging/judge/llm, tuner/judging/labels,
// tuner/judging/pool, tuner/judging/robust, tuner/replay, tuner/scoring.
package judging
