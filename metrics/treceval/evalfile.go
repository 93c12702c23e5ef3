package treceval

import (
	"context"
	"errors"
	"fmt"

	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/internal/userfile"
)

// EvaluateFile scores the run file at path while reading it, query by
// query, so memory stays flat however long the run. A run whose queries are
// not contiguous is read again whole and evaluated in one go. Errors name
// the file; when ctx is cancelled while reading, its error is returned.
func EvaluateFile(ctx context.Context, qrels trec.Judgments, path string, sel Selection, o Options) (*Result, error) {
	f, err := userfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	defer f.Close()
	st, err := NewStream(qrels, sel, o)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	tag, err := trec.ScanRunTransient(f, path, func(qid string, results []trec.Result) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return st.Add(qid, results)
	})
	if err != nil {
		st.Close()
		if !errors.Is(err, ErrNotGrouped) {
			return nil, err
		}
		run, err := trec.ReadRunFile(path)
		if err != nil {
			return nil, err
		}
		res, err := Evaluate(qrels, run, sel, o)
		if err != nil {
			return nil, fmt.Errorf("eval %s: %w", path, err)
		}
		return res, nil
	}
	res, err := st.Result(tag)
	if err != nil {
		return nil, fmt.Errorf("eval %s: %w", path, err)
	}
	return res, nil
}
