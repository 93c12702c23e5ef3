package experiments

import (
	"fmt"
	"strings"
)

// Segmentations are the query attributes a scorecard can be split by
// (besides "meta.KEY", a key of the query's free metadata).
var Segmentations = []string{"language", "category", "difficulty"}

// NoSegment is the segment of a query that does not state the attribute.
const NoSegment = "(none)"

// CheckSegmentation returns an error unless by is one of Segmentations
// or "meta.KEY" with a non-empty KEY.
func CheckSegmentation(by string) error {
	for _, s := range Segmentations {
		if by == s {
			return nil
		}
	}
	if key, ok := strings.CutPrefix(by, "meta."); ok && key != "" {
		return nil
	}
	return fmt.Errorf("unknown segmentation %q (want %s or meta.KEY)", by, strings.Join(Segmentations, ", "))
}

// Segment returns the segment of q under by (see CheckSegmentation):
// its language, category, difficulty or the value of its metadata key
// as text, NoSegment when q does not state it.
func (q Query) Segment(by string) string {
	var v string
	switch by {
	case "language":
		v = q.Language
	case "category":
		v = q.Category
	case "difficulty":
		v = q.Difficulty
	default:
		if key, ok := strings.CutPrefix(by, "meta."); ok {
			if x, ok := q.Meta[key]; ok && x != nil {
				v = fmt.Sprint(x)
			}
		}
	}
	if v == "" {
		return NoSegment
	}
	return v
}

// Filter returns the queries of gs in category (when not "") and in
// language (when not "" or "all"), the rest of gs kept, and a description
// of the filter ("category=faq, language=hi"; "" for none).
func (gs *GoldenSet) Filter(category, language string) (*GoldenSet, string) {
	if language == "all" {
		language = ""
	}
	var named []string
	if category != "" {
		named = append(named, "category="+category)
	}
	if language != "" {
		named = append(named, "language="+language)
	}
	if len(named) == 0 {
		return gs, ""
	}
	out := *gs
	out.Queries = nil
	for _, q := range gs.Queries {
		if (category == "" || q.Category == category) && (language == "" || q.Language == language) {
			out.Queries = append(out.Queries, q)
		}
	}
	return &out, strings.Join(named, ", ")
}

// Languages lists the languages queries state, sorted and
// comma-separated ("en,es"); "" when none states one.
func Languages(queries []Query) string {
	return strings.Join(distinct(queries, func(q Query) string { return q.Language }), ",")
}
