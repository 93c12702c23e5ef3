package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/internal/openai"
)

// completion is one successful call's answer.
type completion struct {
	content string
	tokens  int64 // -1 when the server reported no usage
}

// ErrHTTP is wrapped by errors about a response that is not a usable chat
// completion (a status that is no success, a body that is not the JSON of
// one).
var ErrHTTP = errors.New("chat completions request failed")

// post makes one attempt (openai.Client.Post) and reads its completion.
// Its error is the client's *openai.Error for a failed request (retryable
// for what another attempt may cure: 429, 5xx, 408, a timeout or a broken
// connection, a truncated body), or one of completionOf's.
func (j *Judge) post(ctx context.Context, req openai.ChatRequest) (completion, error) {
	data, err := j.client.Post(ctx, openai.ChatPath, req)
	if err != nil {
		return completion{}, err
	}
	return j.completionOf(data)
}

// describe words a failed attempt's error as the judge reports it:
// ErrHTTP with what went wrong, secrets redacted; any other error as is.
func (j *Judge) describe(parent context.Context, err error) error {
	var e *openai.Error
	if !errors.As(err, &e) {
		return err
	}
	switch {
	case e.StatusCode != 0:
		return fmt.Errorf("%w: HTTP %d from %s: %s", ErrHTTP, e.StatusCode, e.URL, excerpt(e.Body))
	case e.Canceled:
		return fmt.Errorf("%w: %w", ErrHTTP, context.Cause(parent))
	case e.Reading:
		return fmt.Errorf("%w: reading the response: %v", ErrHTTP, j.redact(e.Err.Error()))
	case e.Timeout > 0:
		return fmt.Errorf("%w: no answer within %s from %s", ErrHTTP, e.Timeout, e.URL)
	}
	return fmt.Errorf("%w: %v", ErrHTTP, j.redact(e.Err.Error()))
}

// completionOf reads a chat completion's body: its first choice's content
// and the tokens used (-1 when not reported). A body that is not its JSON
// is retryable (cut short: another attempt may get it whole); one without
// content is final; an answer cut off at max_tokens is ErrBadAnswer.
func (j *Judge) completionOf(data []byte) (completion, error) {
	var cr openai.ChatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return completion{}, openai.Temporary(fmt.Errorf("%w: the response is not a chat completion's JSON (%v): %s", ErrHTTP, err, excerpt(j.redact(string(data)))))
	}
	if len(cr.Choices) == 0 || cr.Choices[0].Message.Content == nil {
		return completion{}, fmt.Errorf("%w: the response has no choices[0].message.content: %s", ErrHTTP, excerpt(j.redact(string(data))))
	}
	c := completion{content: *cr.Choices[0].Message.Content, tokens: -1}
	if cr.Usage != nil {
		c.tokens = cr.Usage.TotalTokens
		if c.tokens == 0 {
			c.tokens = cr.Usage.PromptTokens + cr.Usage.CompletionTokens
		}
	}
	if cr.Choices[0].FinishReason == "length" {
		return c, fmt.Errorf("%w: the answer was cut off at max_tokens: %s", ErrBadAnswer, excerpt(j.redact(c.content)))
	}
	return c, nil
}

// maxResponseBytes bounds a response body read into memory.
const maxResponseBytes = 16 << 20

// excerpt shortens text for a message.
func excerpt(s string) string {
	s = strings.TrimSpace(s)
	const n = 200
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%q…", s[:cut])
	}
	return fmt.Sprintf("%q", s)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// call sends one request under the judge's retry policy (openai.Retry):
// every attempt is admitted by the budget first (bound tokens) and
// charged after. It returns the last attempt's error when all fail.
func (j *Judge) call(ctx context.Context, req openai.ChatRequest, bound int64) (completion, error) {
	var c completion
	var last error // the last failed attempt's error, described
	n, err := j.retry.Do(ctx, func(ctx context.Context) error {
		if err := j.meter.reserve(bound); err != nil {
			if last != nil {
				return fmt.Errorf("%w (after: %v)", err, last)
			}
			return err
		}
		var err error
		c, err = j.post(ctx, req)
		var e *openai.Error
		switch {
		case err == nil:
			j.meter.settle(bound, c.tokens)
			return nil
		case errors.As(err, &e) && e.Timeout > 0:
			j.meter.settle(bound, -1) // a call that timed out may have been billed
		default:
			j.meter.settle(bound, max(c.tokens, 0))
		}
		last = j.describe(ctx, err)
		return err
	})
	switch again, _ := openai.Retryable(err); {
	case err == nil:
		return c, nil
	case errors.Is(err, ErrBudget):
		return completion{}, err
	case ctx.Err() != nil:
		return completion{}, errors.Join(last, context.Cause(ctx))
	case again:
		return completion{}, fmt.Errorf("%w (gave up after %d attempts)", last, n)
	}
	return c, last
}

// MaxRetryAfter caps how long a server's Retry-After makes the judge wait.
const MaxRetryAfter = 2 * time.Minute
