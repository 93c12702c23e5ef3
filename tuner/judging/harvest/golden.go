package harvest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// JudgeCOEC names the click model in the label store.
const JudgeCOEC = "implicit:coec"

// nativeQuery is a harvested query in the native golden-set format.
type nativeQuery struct {
	ID       string         `json:"id"`
	Query    string         `json:"query"`
	Category string         `json:"category,omitempty"`
	Awaiting bool           `json:"awaiting_judgments"`
	Meta     map[string]any `json:"meta"`
}

// Golden writes qs as a native golden set (JSON), each query awaiting
// judgments (a label store gives them), with its harvest in meta: the
// number of searches, the first and last time it was searched and the
// normalised text. With existing (a native golden set's bytes), its
// queries are kept byte for byte, first, and only the queries of qs whose
// ids it does not hold are added. It returns the bytes and how many
// queries were added.
func Golden(existing []byte, qs []Query) ([]byte, int, error) {
	var kept []json.RawMessage
	have := map[string]bool{}
	if existing != nil {
		var err error
		if kept, err = existingQueries(existing); err != nil {
			return nil, 0, err
		}
		for _, raw := range kept {
			have[rawID(raw)] = true
		}
	}
	var buf bytes.Buffer
	buf.WriteString("{\"queries\": [\n")
	n := 0
	write := func(raw []byte) {
		if n > 0 {
			buf.WriteString(",\n")
		}
		buf.WriteString("  ")
		buf.Write(raw)
		n++
	}
	for _, raw := range kept {
		write(raw)
	}
	added := 0
	for _, q := range qs {
		if have[q.ID] {
			continue
		}
		have[q.ID] = true
		raw, err := json.Marshal(nativeQuery{ID: q.ID, Query: q.Text, Category: q.Category, Awaiting: true,
			Meta: map[string]any{"harvest": map[string]any{"count": q.Count, "first_seen": q.First.UTC().Format(time.RFC3339Nano),
				"last_seen": q.Last.UTC().Format(time.RFC3339Nano), "normalized": q.Norm}}})
		if err != nil {
			return nil, 0, err
		}
		write(raw)
		added++
	}
	buf.WriteString("\n]}\n")
	return buf.Bytes(), added, nil
}

// existingQueries returns the queries of a native JSON golden set: the
// "queries" list of an object, or the top-level list.
func existingQueries(data []byte) ([]json.RawMessage, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(data, &list); err == nil {
		return list, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("not a native JSON golden set: %w", err)
	}
	for k := range obj {
		if k != "queries" {
			return nil, fmt.Errorf("holds %q besides queries: add the harvested queries by hand or write to another file", k)
		}
	}
	if err := json.Unmarshal(obj["queries"], &list); err != nil {
		return nil, fmt.Errorf("queries: %w", err)
	}
	return list, nil
}

// Labels turns implicit judgments into label-store labels of dataset:
// source implicit (never above gold, human, file or llm labels), judge
// JudgeCOEC, the COEC and its counts as the rationale, given at the time
// at (the log's last event, so a re-harvest of the same log gives the
// same labels).
func Labels(js []Judgment, dataset string, at time.Time) []labels.Label {
	out := make([]labels.Label, 0, len(js))
	for _, j := range js {
		out = append(out, labels.Label{Dataset: dataset, Query: j.Query, Doc: j.Doc, Grade: j.Grade, Judge: JudgeCOEC,
			Source: labels.SourceImplicit, Time: at, Confidence: j.Confidence,
			Rationale: "COEC " + strconv.FormatFloat(j.COEC, 'f', 3, 64) + " (clicks " + strconv.Itoa(j.Clicks) +
				", expected " + strconv.FormatFloat(j.Expected, 'f', 3, 64) + ", impressions " + strconv.Itoa(j.Impressions) + ")"})
	}
	return out
}

// rawID is the id of a native query as the loader reads it (a number's
// text for a numeric id); "" when it has none.
func rawID(raw json.RawMessage) string {
	var q struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(raw, &q) != nil || q.ID == nil {
		return ""
	}
	var id string
	if json.Unmarshal(q.ID, &id) != nil {
		id = string(q.ID)
	}
	return id
}

// AppendLabels appends the implicit judgments to the label store at url
// as labels of dataset (Labels) and returns how many it appended per grade
// and how many it skipped because the store's latest JudgeCOEC label of
// the pair is the same label (same grade, time, rationale and confidence:
// a re-harvest of the same log appends nothing).
func AppendLabels(ctx context.Context, url string, js []Judgment, dataset string, at time.Time) (map[int]int, int, error) {
	st, err := labels.Open(ctx, url)
	if err != nil {
		return nil, 0, fmt.Errorf("labels: %w", err)
	}
	defer st.Close()
	have, err := st.Select(ctx, dataset, false, JudgeCOEC)
	if err != nil {
		return nil, 0, fmt.Errorf("labels: %w", err)
	}
	type pair struct{ q, d string }
	latest := make(map[pair]labels.Label, len(have))
	for _, l := range have {
		latest[pair{l.Query, l.Doc}] = l
	}
	var ls []labels.Label
	skipped := 0
	for _, l := range Labels(js, dataset, at) {
		if h, ok := latest[pair{l.Query, l.Doc}]; ok && sameLabel(h, l) {
			skipped++
			continue
		}
		ls = append(ls, l)
	}
	if err := st.Append(ctx, ls); err != nil {
		return nil, 0, fmt.Errorf("labels: %w", err)
	}
	byGrade := map[int]int{}
	for _, l := range ls {
		byGrade[l.Grade]++
	}
	return byGrade, skipped, nil
}

// sameLabel reports whether two labels of one pair and judge say the same
// thing at the same time.
func sameLabel(a, b labels.Label) bool {
	return a.Grade == b.Grade && a.Time.Equal(b.Time) && a.Rationale == b.Rationale && a.Confidence == b.Confidence && a.Source == b.Source
}
