package trec

// ResultBuffer is a reusable copy of a block of results, for a caller of
// ScanRunTransient that hands results on: Set copies them, document ids
// included, into memory the buffer keeps from one Set to the next.
type ResultBuffer struct {
	// Results are the results of the last Set; their DocNo strings live in
	// the buffer.
	Results []Result
	ids     []byte
}

// Set makes b.Results a copy of results (which must not be b.Results). It
// overwrites the document ids of the previous Set in place: nothing may
// use those strings any longer.
func (b *ResultBuffer) Set(results []Result) {
	n := 0
	for _, r := range results {
		n += len(r.DocNo)
	}
	if cap(b.ids) < n {
		b.ids = make([]byte, 0, n+n/4)
	}
	b.ids = b.ids[:0]
	b.Results = append(b.Results[:0], results...)
	for i, r := range results {
		start := len(b.ids)
		b.ids = append(b.ids, r.DocNo...) // within capacity: the strings before stay valid
		b.Results[i].DocNo = unsafeString(b.ids[start:])
	}
}
