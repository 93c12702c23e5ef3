package metrics

// Query is one query's judgments with the totals every measure needs
// (relevant count, total gain, ideal ordering), computed once. The tuner
// scores the same query under many configurations: building a Query per
// golden query and calling Scorecard.ScoreQuery skips that work each time.
// A Query is read-only after NewQuery and safe for concurrent use.
type Query struct {
	Judgments Judgments
	Options   Options
	ideal     []int // every judged grade (negative as 0), descending
	numRel    int   // judged documents with grade >= Options.Threshold
	numStrong int   // judged documents with grade >= Options.StrongGrade()
	numExact  int   // judged documents with grade >= Options.ExactGrade()
	sumGain   int   // sum of all judged grades
}

// NewQuery prepares j for scoring under o.
func NewQuery(j Judgments, o Options) *Query {
	q := &Query{}
	q.reset(j, o)
	return q
}

func (q *Query) reset(j Judgments, o Options) {
	q.Judgments, q.Options = j, o
	q.numRel, q.numStrong, q.numExact, q.sumGain = 0, 0, 0, 0
	q.ideal = q.ideal[:0]
	strong, exact := o.StrongGrade(), o.ExactGrade()
	for _, g := range j {
		g = max(g, 0)
		q.ideal = append(q.ideal, g)
		q.sumGain += g
		if g >= o.Threshold {
			q.numRel++
		}
		if g >= strong {
			q.numStrong++
		}
		if g >= exact {
			q.numExact++
		}
	}
	sortDesc(q.ideal)
}
