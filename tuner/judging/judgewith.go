package judging

import (
	"context"

	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
	"github.com/fusiontune/fusiontune/tuner/judging/pool"
)

// JudgeWith adapts a judge to the judge loop: pairs carry the query texts
// and, with docs, the documents' titles and texts; labels get the pool's
// dataset.
func JudgeWith(jd judge.Judge, queries map[string]string, docs map[string]judge.Doc) JudgeFunc {
	return func(ctx context.Context, pairs []pool.Pair) ([]labels.Label, error) {
		in := make([]judge.Pair, len(pairs))
		for i, p := range pairs {
			d := docs[p.Doc]
			in[i] = judge.Pair{Query: p.Query, QueryText: queries[p.Query], Doc: p.Doc, DocTitle: d.Title, DocText: d.Text}
		}
		ls, err := jd.Judge(ctx, in)
		if len(pairs) > 0 {
			for i := range ls {
				ls[i].Dataset = pairs[0].Dataset
			}
		}
		return ls, err
	}
}
