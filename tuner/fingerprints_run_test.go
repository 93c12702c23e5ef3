package tuner_test

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner"
)

// fingerprinted is a landscapes factory with a fingerprint whose first
// call is awaited by the backends' start: a run that asks for the
// fingerprint only once the backend is up never starts it.
type fingerprinted struct {
	landscapes
	once  sync.Once
	asked chan struct{}
	calls chan string // each call's params, in order
}

var _ backend.Fingerprinter = (*fingerprinted)(nil)

func (f *fingerprinted) Fingerprint(p map[string]any) (string, error) {
	f.once.Do(func() { close(f.asked) })
	select {
	case f.calls <- experiments.Params(p).String():
	default:
	}
	return experiments.Params(p).String(), nil
}

func (f *fingerprinted) Open(dir string, log io.Writer) (backend.Backend, error) {
	b, err := f.landscapes.Open(dir, log)
	if err != nil {
		return nil, err
	}
	return &awaitingStart{Backend: b, asked: f.asked}, nil
}

// awaitingStart starts only once the fingerprint was asked for (at most
// five seconds).
type awaitingStart struct {
	backend.Backend
	asked chan struct{}
}

func (b *awaitingStart) Restart(ctx context.Context) error {
	select {
	case <-b.asked:
		return b.Backend.Restart(ctx)
	case <-time.After(5 * time.Second):
		return errors.New("the fingerprint was not asked for while the backend started")
	}
}

// TestRunFingerprintsBesideTheStart: the fingerprint of the pre-flight's
// trial, whose one-time work (the embedded engine reads and chunks the
// corpus) the first trial waits for, is computed while the backend
// starts, not after; the run then goes on as ever (reuse keys included).
func TestRunFingerprintsBesideTheStart(t *testing.T) {
	c := runConfig(t, landscapeTrials(), nil)
	f := &fingerprinted{asked: make(chan struct{}), calls: make(chan string, 64)}
	c.Backend = f
	out, err := tuner.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	checkFinished(t, out, 3, 0)
	close(f.calls)
	first := <-f.calls
	if want := landscapeTrials()[0].Params.String(); first != want {
		t.Errorf("first fingerprint of %s, want the pre-flight's trial %s", first, want)
	}
}
