// Package embed turns text into vectors for dense retrieval.
//
// New builds an Embedder from a spec string:
//
//   - lsa-<dim>: latent semantic analysis fitted on the corpus (Fitter):
//     sublinear TF-IDF over stemmed, stop-word-filtered tokens, projected
//     on the top <dim> right singular vectors of the document-term matrix,
//     found by randomized SVD. Persist a fitted model with MarshalBinary.
//   - hash-<dim>: hashed character 3- to 5-grams of lowercased words; no
//     fitting, robust to typos.
//   - openai:<model>: any OpenAI-compatible POST /v1/embeddings server
//     (OpenAI, Ollama, vLLM, TEI); base URL and API key come from Options
//     (the caller reads DefaultAPIKeyEnv, OPENAI_API_KEY).
//   - file:<path>: precomputed vectors from a JSONL file.
//
// Every built-in embedder returns L2-normalized vectors (a text without any
// feature maps to the zero vector), so the dot product is the cosine.
//
// Imports of ours: internal/openai, internal/parallel, internal/plainnum, internal/userfile.
package embed
