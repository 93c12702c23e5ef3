package openai

// Paths of the endpoints, below a server's base URL.
const (
	EmbeddingsPath = "/v1/embeddings"
	ChatPath       = "/v1/chat/completions"
)

// EmbeddingsRequest is the body of POST /v1/embeddings.
type EmbeddingsRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

// EmbeddingsResponse is the part of an embeddings answer the embedder
// reads: one vector per input, placed by its index.
type EmbeddingsResponse struct {
	Data []Embedding `json:"data"`
}

// Embedding is one vector of an EmbeddingsResponse.
type Embedding struct {
	Embedding []float32 `json:"embedding"`
	Index     int       `json:"index"`
}

// ChatRequest is the body of POST /v1/chat/completions.
type ChatRequest struct {
	Model       string        `json:"model"`
	Messages    []ChatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
	MaxTokens   int           `json:"max_tokens"`
	Seed        *int64        `json:"seed,omitempty"`
}

// ChatMessage is one message of a ChatRequest.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatResponse is the part of a chat completion the judge reads.
type ChatResponse struct {
	Choices []ChatChoice `json:"choices"`
	Usage   *Usage       `json:"usage"`
}

// ChatChoice is one choice of a ChatResponse; Content is nil when the
// server sent none.
type ChatChoice struct {
	Message struct {
		Content *string `json:"content"`
	} `json:"message"`
	FinishReason string `json:"finish_reason"`
}

// Usage is the tokens a call used, as the server reports them.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}
