package shadow

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/tuner/pass"
)

// Opener brings a side's backend up, hands its Searcher to use and
// releases the backend again (restoring what it changed).
type Opener func(ctx context.Context, use func(context.Context, backend.Searcher) error) error

// Applied is the Opener of params on a backend kind: the tuner's
// lifecycle of a trial (Factory.Open with its files in a directory of its
// own under scratch, Apply, Restart, Ready), searched through the kind's
// own Search, then Close, which restores what the kind changed. Empty
// params are the backend as its settings configure it, as `tune
// check-quality` sees it; nil params search a service that runs on its
// own as it runs (nothing applied, nothing restarted: Open, Ready).
func Applied(f backend.Factory, params map[string]any, scratch string, log io.Writer) Opener {
	return func(ctx context.Context, use func(context.Context, backend.Searcher) error) (err error) {
		dir, err := os.MkdirTemp(scratch, "side-")
		if err != nil {
			return err
		}
		b, err := f.Open(dir, log)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, b.Close()) }()
		if params == nil {
			err = b.Ready(ctx)
		} else {
			_, err = pass.Start(ctx, b, params, true)
		}
		if err != nil {
			return err
		}
		return use(ctx, b)
	}
}
