package openai

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// Retry is the retry policy of a call: after a failed attempt that
// another may cure (Retryable), wait and try again, at most Retries
// times. The wait before retry n (1-based) is the server's Retry-After,
// capped at MaxRetryAfter, or else Backoff doubled n-1 times, capped at
// MaxBackoff, then spread by ±Jitter (a fraction).
type Retry struct {
	Retries       int
	Backoff       time.Duration
	MaxBackoff    time.Duration // 0: no cap
	MaxRetryAfter time.Duration // 0: no cap
	Jitter        float64
}

// Wait returns the wait before retry n (1-based) after a failure whose
// server asked for retryAfter (0: it did not).
func (p Retry) Wait(n int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		if p.MaxRetryAfter > 0 {
			return min(retryAfter, p.MaxRetryAfter)
		}
		return retryAfter
	}
	d := p.Backoff << min(max(n-1, 0), 30)
	if p.MaxBackoff > 0 && (d > p.MaxBackoff || d < p.Backoff) {
		d = p.MaxBackoff
	}
	if p.Jitter > 0 {
		d = time.Duration(float64(d) * (1 - p.Jitter + 2*p.Jitter*rand.Float64()))
	}
	return d
}

// Do calls attempt until it succeeds, fails for good (an error that is
// not Retryable), or the retries are spent, waiting between attempts as
// p says. It returns how many attempts were made and the last one's
// error, wrapped in *Interrupted when ctx ended before the next attempt.
func (p Retry) Do(ctx context.Context, attempt func(context.Context) error) (int, error) {
	for n := 1; ; n++ {
		err := attempt(ctx)
		if err == nil {
			return n, nil
		}
		again, after := Retryable(err)
		if !again || n > p.Retries {
			return n, err
		}
		if ctx.Err() != nil {
			return n, &Interrupted{Err: err}
		}
		t := time.NewTimer(p.Wait(n, after))
		select {
		case <-ctx.Done():
			t.Stop()
			return n, &Interrupted{Err: err}
		case <-t.C:
		}
	}
}

// Interrupted is Do's error when its context ended while it waited to
// try again: Err is the last attempt's error.
type Interrupted struct{ Err error }

// Error returns the last attempt's error's message.
func (e *Interrupted) Error() string { return e.Err.Error() }

// Unwrap returns the last attempt's error.
func (e *Interrupted) Unwrap() error { return e.Err }

// Retryable reports whether err (or what it wraps) is worth another
// attempt, and the wait its server asked for (0: none): a retryable
// *Error, or an error marked with Temporary.
func Retryable(err error) (bool, time.Duration) {
	var t *temporary
	if errors.As(err, &t) {
		return true, 0
	}
	var e *Error
	if errors.As(err, &e) {
		return e.retry, e.RetryAfter
	}
	return false, 0
}

// Temporary marks err, a caller's finding about a response (a body cut
// short, say), as worth another attempt.
func Temporary(err error) error { return &temporary{err} }

type temporary struct{ err error }

func (t *temporary) Error() string { return t.err.Error() }
func (t *temporary) Unwrap() error { return t.err }
