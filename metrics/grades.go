package metrics

// ScoreGrades is ScoreQuery for a ranking already reduced to grades: the
// grade (0 when unjudged or negative) and the judged flag of each unique
// document, best first, as deep as the ranking goes or at least as deep
// as the scorecard reads. It gives ScoreQuery's values without touching
// ids: the tuner's replay maps each candidate to its grade once per query
// and scores thousands of fused rankings of it. grades and judged must
// have equal lengths; they are not modified.
func (s Scorecard) ScoreGrades(dst []float64, grades []int, judged []bool, q *Query) []float64 {
	if cap(dst) < len(s.Metrics) {
		dst = make([]float64, len(s.Metrics))
	}
	dst = dst[:len(s.Metrics)]
	p := prepared{grades: grades, judged: judged, q: q}
	for i, m := range s.Metrics {
		dst[i] = p.score(m)
	}
	return dst
}
