// Package openai is the client of OpenAI-compatible servers (OpenAI,
// Ollama, vLLM, TEI, …) that the embedder and the LLM judge share: the
// request and response bodies of POST /v1/embeddings and POST
// /v1/chat/completions, one attempt at a request (Client.Post: a bearer
// key, a timeout per attempt, a bounded body, secrets redacted from what
// it reports), and one retry policy (Retry: 429, 408, 5xx, timeouts and
// broken connections are retried with exponential backoff, a server's
// Retry-After honoured).
//
// A failed attempt is an *Error whose fields say what happened, so each
// caller words it as it always has. It is a leaf: it imports nothing else
// of fusiontune.
//
// Imports of ours: none.
package openai
