package treceval

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
)

// WriteTREC prints r as trec_eval does: `measure<TAB>qid<TAB>value` with
// the measure name padded to 22 characters, counts as integers and other
// numbers with four decimals. With perQuery, each query's lines come first,
// in query id order, then the "all" lines.
func (r *Result) WriteTREC(w io.Writer, perQuery bool) error {
	bw := bufio.NewWriterSize(w, 64*1024)
	var buf []byte
	line := func(col Column, qid string, v Value) {
		buf = append(buf[:0], col.Name...)
		for len(buf) < 22 {
			buf = append(buf, ' ')
		}
		buf = append(buf, '\t')
		buf = append(buf, qid...)
		buf = append(buf, '\t')
		buf = AppendValue(buf, col.Kind, v)
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	r.Each(perQuery, line)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return nil
}

// Each calls fn for every printed value in trec_eval's order: with
// perQuery, each query's values in query id order, then the "all" values.
func (r *Result) Each(perQuery bool, fn func(col Column, qid string, v Value)) {
	if perQuery {
		for i, q := range r.Queries {
			for c, col := range r.Columns {
				if col.PerQuery {
					fn(col, q.ID, r.Value(i, c))
				}
			}
		}
	}
	for c, col := range r.Columns {
		if col.InAll {
			fn(col, "all", r.All[c])
		}
	}
}

// AppendValue appends v formatted as trec_eval prints a value of kind k.
func AppendValue(buf []byte, k Kind, v Value) []byte {
	switch k {
	case String:
		return append(buf, v.Str...)
	case Int:
		return strconv.AppendInt(buf, int64(v.Num), 10)
	}
	if math.IsNaN(v.Num) || math.IsInf(v.Num, 0) {
		return fmt.Appendf(buf, "%6.4f", v.Num)
	}
	return strconv.AppendFloat(buf, v.Num, 'f', 4, 64) // %6.4f: at least "0.0000", never padded
}
