package judge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// Pair is one (query, document) pair to judge, with the texts a judge
// reads.
type Pair struct {
	Query, QueryText, Doc, DocTitle, DocText string
}

// QueryContext is what a judge may be shown about a query beyond its
// text: its category and notes from the golden set, the text of its
// reference passages (the top-graded judgments, resolved: a passage's
// excerpt, a document's text) and the rubric of its category.
type QueryContext struct {
	Category, Notes, Rubric string
	References              []string
}

// Judge gives labels to pairs.
type Judge interface {
	// Name is the judge recorded on its labels ("llm:<model>@<hash8>",
	// "file:<basename>", a person's name).
	Name() string
	// Judge returns labels for the pairs it can judge, in the order of
	// pairs (a judge may leave a pair out: a file that does not judge it).
	// On error it returns the labels it finished before the error, each
	// whole; callers decide whether to keep them.
	Judge(ctx context.Context, pairs []Pair) ([]labels.Label, error)
}

// Doc is a corpus document's title and text, as pairs show them.
type Doc struct {
	Title, Text string
}

// ErrUnknown is wrapped by errors about pool entries the settings cannot
// judge: another dataset's, or query or document ids that the golden set
// or the corpus does not know.
var ErrUnknown = errors.New("not of this dataset, golden set or corpus")

// Pairs builds the pairs of a pool for dataset: each entry's query text from
// queries (id -> text) and document from docs (id -> title and text; nil
// when no corpus is known: pairs then carry ids only). Entries of another
// dataset, unknown queries and unknown documents are errors, all listed
// (at most 20 named).
func Pairs(entries []PoolEntry, dataset string, queries map[string]string, docs map[string]Doc) ([]Pair, error) {
	var bad []string
	n := 0
	out := make([]Pair, 0, len(entries))
	for _, e := range entries {
		var why string
		qt, qok := queries[e.Query]
		d, dok := docs[e.Doc]
		switch {
		case e.Dataset != dataset:
			why = fmt.Sprintf("dataset %q is not the settings' %q (--dataset-id %s picks it from the datasets list)", e.Dataset, dataset, e.Dataset)
		case !qok:
			why = fmt.Sprintf("query %q is not in the golden set", e.Query)
		case docs != nil && !dok:
			why = fmt.Sprintf("document %q is not in the corpus", e.Doc)
		default:
			out = append(out, Pair{Query: e.Query, QueryText: qt, Doc: e.Doc, DocTitle: d.Title, DocText: d.Text})
			continue
		}
		n++
		if len(bad) < 20 {
			bad = append(bad, fmt.Sprintf("%s: %s", e.Where, why))
		}
	}
	if n > 0 {
		more := ""
		if n > len(bad) {
			more = fmt.Sprintf("\n  (and %d more)", n-len(bad))
		}
		return nil, fmt.Errorf("%d pool pairs cannot be judged (%w):\n  %s%s", n, ErrUnknown, strings.Join(bad, "\n  "), more)
	}
	return out, nil
}

// Unjudged returns the pairs that have no label by the judge named judge
// among ls (a store's Latest labels), so that a re-run judges only what is
// new.
func Unjudged(pairs []Pair, ls []labels.Label, judge string) []Pair {
	have := map[[2]string]bool{}
	for _, l := range ls {
		if l.Judge == judge {
			have[[2]string{l.Query, l.Doc}] = true
		}
	}
	return slices.DeleteFunc(slices.Clone(pairs), func(p Pair) bool { return have[[2]string{p.Query, p.Doc}] })
}
