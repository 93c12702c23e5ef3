package embed

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/internal/openai"
)

// MaxHandlerInputs bounds the texts of one embeddings request (Handler).
const MaxHandlerInputs = 2048

// maxHandlerBody bounds an embeddings request's body (32 MiB).
const maxHandlerBody = 32 << 20

// Handler serves POST /v1/embeddings, the OpenAI-compatible embeddings
// endpoint, with the embedders of models (keyed by the name a request
// gives as "model"): {"input": ["text", ...], "model": "lsa-256"} (input
// may also be one string) is answered with
// {"object": "list", "data": [{"object": "embedding", "embedding": [...],
// "index": 0}, ...], "model": "lsa-256", "usage": {...}}, each vector the
// embedder's EmbedQuery of that input, so a client in any language gets
// the query vectors the tuner searched with. An unknown model, an empty
// or oversized input (over MaxHandlerInputs texts) or a malformed body is
// answered 400 with an OpenAI-style error object.
func Handler(models map[string]Embedder) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(openai.EmbeddingsPath, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, http.StatusMethodNotAllowed, "use POST")
			return
		}
		var req struct {
			Model string          `json:"model"`
			Input json.RawMessage `json:"input"`
		}
		dec := json.NewDecoder(io.LimitReader(r.Body, maxHandlerBody))
		if err := dec.Decode(&req); err != nil {
			writeError(w, http.StatusBadRequest, "body: "+err.Error())
			return
		}
		e, ok := models[req.Model]
		if !ok {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("model %q: this server embeds with %s", req.Model, strings.Join(modelNames(models), ", ")))
			return
		}
		inputs, err := handlerInputs(req.Input)
		if err != nil {
			writeError(w, http.StatusBadRequest, "input: "+err.Error())
			return
		}
		resp := handlerResponse{Object: "list", Model: req.Model, Data: make([]handlerEmbedding, len(inputs))}
		for i, text := range inputs {
			v, err := e.EmbedQuery(r.Context(), text)
			if err != nil {
				writeError(w, http.StatusInternalServerError, fmt.Sprintf("input[%d]: %v", i, err))
				return
			}
			resp.Data[i] = handlerEmbedding{Object: "embedding", Embedding: v, Index: i}
			resp.Usage.PromptTokens += len(strings.Fields(text))
		}
		resp.Usage.TotalTokens = resp.Usage.PromptTokens
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	})
	return mux
}

// handlerResponse is an OpenAI embeddings answer (openai.EmbeddingsResponse
// and the fields clients expect beside it).
type handlerResponse struct {
	Object string             `json:"object"`
	Data   []handlerEmbedding `json:"data"`
	Model  string             `json:"model"`
	Usage  struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

type handlerEmbedding struct {
	Object    string    `json:"object"`
	Embedding []float32 `json:"embedding"`
	Index     int       `json:"index"`
}

// handlerInputs reads a request's input: a string or a non-empty list of
// at most MaxHandlerInputs strings.
func handlerInputs(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 {
		return nil, errors.New("required: a string or a list of strings")
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, errors.New("want a string or a list of strings (token arrays are not supported)")
	}
	if len(list) == 0 || len(list) > MaxHandlerInputs {
		return nil, fmt.Errorf("want 1 to %d strings (got %d)", MaxHandlerInputs, len(list))
	}
	return list, nil
}

func modelNames(models map[string]Embedder) []string {
	names := make([]string, 0, len(models))
	for n := range models {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// writeError answers an OpenAI-style error object.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}
