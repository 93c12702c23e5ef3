package experiments

// ReferenceName is the name of the trial that runs retriever alone ("bm25
// only", "dense only": retrievers set to that one retriever), as tune
// init's starter experiment writes it: a reference a hybrid has to beat
// to be worth its second retriever. Code that looks for references reads
// the retrievers parameter, whatever the trial's name.
func ReferenceName(retriever string) string { return retriever + " only" }
