package experiments

import "github.com/fusiontune/fusiontune/backend"

// ReferenceName is the name of the trial that runs retriever alone ("bm25
// only", "dense only"), as tune init's starter experiment writes it: a
// reference a hybrid has to beat to be worth its second retriever.
func ReferenceName(retriever string) string { return retriever + " only" }

// SingleRetriever reports the retriever a trial with params p runs alone:
// its retrievers parameter names exactly one. Such a trial is a
// reference, whatever its name (ReferenceName is the convention).
func SingleRetriever(p Params) (string, bool) {
	v, ok := p[backend.ParamRetrievers]
	if !ok {
		return "", false
	}
	list, msg := backend.StringsValue(v)
	if msg != "" || len(list) != 1 {
		return "", false
	}
	return list[0], true
}
