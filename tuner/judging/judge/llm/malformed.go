package llm

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/internal/openai"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
)

// Skip is a batch of pairs left without a label: the model's answer was
// still malformed after the judge asked again AnswerRetries times.
type Skip struct {
	// Query is the query's id; Docs the documents' ids, sorted.
	Query string
	Docs  []string
	// Attempts is how many answers were asked for; Err the last one's
	// problem (wraps ErrBadAnswer).
	Attempts int
	Err      error
}

// String words the skip as a warning names it.
func (s Skip) String() string {
	return fmt.Sprintf("query %q: documents %s skipped, the answer still malformed after %d attempts: %v",
		s.Query, strings.Join(s.Docs, ", "), s.Attempts, s.Err)
}

// Skipped returns the batches skipped so far, over every run of the
// judge, by query and documents.
func (j *Judge) Skipped() []Skip {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.skips)
}

// skip records b as skipped after attempts answers, the last failing
// with err.
func (j *Judge) skip(pairs []judge.Pair, b batch, attempts int, err error) *Skip {
	s := &Skip{Query: pairs[b.idx[0]].Query, Attempts: attempts, Err: err}
	for _, i := range b.idx {
		s.Docs = append(s.Docs, pairs[i].Doc)
	}
	slices.Sort(s.Docs)
	return s
}

// maxNote bounds the problem a corrective note quotes.
const maxNote = 300

// corrected is req asked again after the malformed answer content: the
// answer as the assistant's turn, then a short note saying what was wrong
// and what to send (the conversation grows by two turns an ask, at most
// MaxAnswerRetries times).
func corrected(req openai.ChatRequest, content string, problem error, ids []string) openai.ChatRequest {
	why := problem.Error()
	if i := strings.Index(why, ErrBadAnswer.Error()+": "); i >= 0 {
		why = why[i+len(ErrBadAnswer.Error())+2:]
	}
	if i := strings.Index(why, "; the answer began"); i >= 0 {
		why = why[:i]
	}
	why = truncate(why, maxNote)
	note := fmt.Sprintf("Your answer could not be read: %s. Answer again with only the JSON object the instructions ask for, grading each of %s exactly once.",
		why, strings.Join(ids, ", "))
	out := req
	out.Messages = append(slices.Clip(req.Messages), openai.ChatMessage{Role: "assistant", Content: content},
		openai.ChatMessage{Role: "user", Content: note})
	return out
}

// wait sleeps d, or less when ctx ends first (then its cause).
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
