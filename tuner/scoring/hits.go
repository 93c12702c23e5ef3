package scoring

import (
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/runs"
)

// TopRecorded is how many hits of each query the run records.
const TopRecorded = 20

// ScoreHits fills r from a ranked hit list: routing (defaulted from the
// hits when the backend reports none), scores, the recorded top and the
// label sequence.
func ScoreHits(r *runs.QueryResult, q Query, sc Scorer, hits []backend.Hit, routing string) {
	ranking := rankingOf(hits)
	r.Routing = routing
	if r.Routing == "" {
		r.Routing = fusion.Routing(len(ranking)) // the engine's rule
	}
	ranking, open := OpenRanking(q, ranking)
	r.Scores, r.Primary = sc.Score(ranking, q.Judgments)
	RecordTop(r, q, hits)
	if open != nil {
		// The grades open patterns gave, by position in the ranking
		// (which holds each id once, as the recorded top does after its
		// first occurrence).
		pos := 0
		seen := map[string]bool{}
		for i := range r.Top {
			d := &r.Top[i]
			if seen[d.DocID] {
				continue
			}
			seen[d.DocID] = true
			if g, ok := open[pos]; ok {
				d.Grade = g
			}
			pos++
		}
		r.Labels = labelsOf(r.Top)
	}
}

// labelsOf is the label sequence of a recorded top (its first 10).
func labelsOf(top []runs.RankedDoc) string {
	labels := make([]string, 0, 10)
	for i := 0; i < len(top) && i < 10; i++ {
		label := "L?"
		if top[i].Grade >= 0 {
			label = "L" + strconv.Itoa(top[i].Grade)
		}
		labels = append(labels, strconv.Itoa(i+1)+":"+label)
	}
	return strings.Join(labels, " | ")
}

// RecordTop fills the recorded top hits and the label sequence of r.
func RecordTop(r *runs.QueryResult, q Query, hits []backend.Hit) {
	n := min(len(hits), TopRecorded)
	r.Top = make([]runs.RankedDoc, 0, n)
	labels := make([]string, 0, n)
	for i := 0; i < n; i++ {
		h := hits[i]
		g, judged := q.Judgments[h.DocID]
		if !judged {
			g = -1
		}
		// No text: a replayed trial's records, derived from candidate
		// lists, must equal the live ones byte for byte.
		r.Top = append(r.Top, runs.RankedDoc{DocID: h.DocID, Score: h.Score, Grade: g})
		if i < 10 {
			label := "L?"
			if judged {
				label = "L" + strconv.Itoa(g)
			}
			labels = append(labels, strconv.Itoa(i+1)+":"+label)
		}
	}
	r.Labels = strings.Join(labels, " | ")
}

// rankingOf lists the hits' document ids, keeping the first occurrence of
// each.
func rankingOf(hits []backend.Hit) []string {
	seen := make(map[string]bool, len(hits))
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		if !seen[h.DocID] {
			seen[h.DocID] = true
			out = append(out, h.DocID)
		}
	}
	return out
}

// textRunes bounds a recorded hit's text.
const textRunes = 240

// ExcerptText is a hit's text as recorded: at most textRunes runes.
func ExcerptText(s string) string {
	if r := []rune(s); len(r) > textRunes {
		return string(r[:textRunes]) + "…"
	}
	return s
}
