package metrics

// Condense returns the judged documents of ranking, in their order: the
// condensed list that trec_eval -J (--Judged_docs_only) scores. Every
// measure of a condensed ranking is the judged-only version of that
// measure ("bpref-style" scoring as Sakai's condensed-list measures): an
// unjudged document neither earns gain nor takes a rank, so a ranking is
// not punished for documents nobody looked at. Cutoffs and precision
// divisors still count positions of the condensed list (trec_eval -J's P@10
// divides by 10 however few judged documents there are). A judgment of 0
// (or below) is judged. ranking is not changed.
func Condense(ranking []string, j Judgments) []string {
	out := make([]string, 0, len(ranking))
	for _, id := range ranking {
		if _, ok := j[id]; ok {
			out = append(out, id)
		}
	}
	return out
}

// JudgedOnlyName is the name under which a measure's judged-only
// (condensed-list) value is reported: "NDCG@10" -> "NDCG@10_J".
func JudgedOnlyName(measure string) string { return measure + "_J" }
