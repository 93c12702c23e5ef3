package treceval

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// Formats are the output formats of Write.
var Formats = []string{"trec", "json", "csv"}

// Write prints r in format: trec (see WriteTREC), json (one document:
// runid, the "all" values and, with perQuery, each query's) or csv
// (measure, query, value rows in trec_eval's order).
func (r *Result) Write(w io.Writer, format string, perQuery bool) error {
	switch format {
	case "json":
		return r.writeJSON(w, perQuery)
	case "csv":
		return r.writeCSV(w, perQuery)
	case "trec":
		return r.WriteTREC(w, perQuery)
	}
	return fmt.Errorf("eval: unknown format %q (want trec, json or csv)", format)
}

func (r *Result) writeCSV(w io.Writer, perQuery bool) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"measure", "query", "value"})
	r.Each(perQuery, func(col Column, qid string, v Value) {
		cw.Write([]string{col.Name, qid, string(AppendValue(nil, col.Kind, v))})
	})
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("eval: write csv: %w", err)
	}
	return nil
}

// jsonDoc is the json format's document. Values are numbers, except
// string measures (runid, relstring).
type jsonDoc struct {
	RunID   string         `json:"runid"`
	Queries []jsonQuery    `json:"queries,omitempty"`
	All     map[string]any `json:"all"`
}

type jsonQuery struct {
	ID       string         `json:"id"`
	Measures map[string]any `json:"measures"`
}

func jsonValue(col Column, v Value) any {
	switch col.Kind {
	case String:
		return v.Str
	case Int:
		return int64(v.Num)
	}
	return json.Number(strconv.FormatFloat(v.Num, 'g', -1, 64))
}

func (r *Result) writeJSON(w io.Writer, perQuery bool) error {
	doc := jsonDoc{RunID: r.RunID, All: map[string]any{}}
	for c, col := range r.Columns {
		if col.InAll {
			doc.All[col.Name] = jsonValue(col, r.All[c])
		}
	}
	if perQuery {
		for i, q := range r.Queries {
			m := map[string]any{}
			for c, col := range r.Columns {
				if col.PerQuery {
					m[col.Name] = jsonValue(col, r.Value(i, c))
				}
			}
			doc.Queries = append(doc.Queries, jsonQuery{ID: q.ID, Measures: m})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("eval: write json: %w", err)
	}
	return nil
}
