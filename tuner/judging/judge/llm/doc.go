// Package llm is the LLM judge: it grades (query, document) pairs through
// any OpenAI-compatible chat completions endpoint (POST
// {base}/v1/chat/completions), several documents of one query per call,
// presented in a seeded random order to reduce position bias.
//
// The prompt is a text/template (two are shipped: Graded, the 4-tier
// fully / mostly / weakly relevant / irrelevant scale, and HPN, high /
// partial / not relevant as 2 / 1 / 0) and the answer is a JSON object
// parsed strictly: a missing, unknown or repeated document, a grade off
// the scale or text that is no JSON is an error that names the query and
// shows the answer's start. Such an answer is asked again, after a
// backoff, with a short note saying what was wrong (AnswerRetries times);
// the pairs of an answer still malformed are skipped, never labelled
// (Skipped lists them), and a run whose every answer was malformed fails.
//
// Calls run with bounded concurrency; 429, 5xx, timeouts and truncated
// responses are retried with exponential backoff (Retry-After honoured).
// A budget in calls and tokens is never exceeded: before a call its tokens
// are reserved at a bound (one token per byte of prompt, as byte-level
// tokenizers never use more, plus the answer's max_tokens) and after it the
// reported usage is charged. Answers are cached in the label store by
// (query text, document text hash, model, prompt hash), so a re-run costs
// nothing. The API key is sent as a bearer token and written nowhere.
//
// Imports of ours: internal/openai, runs, tuner/judging/judge,
// tuner/judging/labels.
package llm
