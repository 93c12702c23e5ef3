package experiments

import "strings"

// validateSet checks what spans queries: duplicate ids, categories outside a
// declared list, and queries that can be neither scored nor routed; a target
// judged twice in one query is a warning. A non-nil
// gs.Categories means the list was declared. Field-level checks (grades,
// labels, regular expressions, empty texts) happen while decoding; a query
// whose decoding failed is not also reported as unjudged.
func validateSet(gs *GoldenSet, l *problemList) {
	declared := gs.Categories != nil
	cats := map[string]bool{}
	for _, c := range gs.Categories {
		cats[c] = true
	}
	first := map[string]string{}
	var awaiting []string
	for i := range gs.Queries {
		q := &gs.Queries[i]
		if q.ID != "" {
			if at, dup := first[q.ID]; dup {
				l.errorf(q.Pos, join(q.path, "id"), "duplicate query id %q (first at %s)", q.ID, at)
			} else {
				first[q.ID] = q.Pos
			}
		}
		if declared {
			switch {
			case q.Category == "":
				l.errorf(q.Pos, join(q.path, "category"), "required when categories are declared (one of: %s)", strings.Join(gs.Categories, ", "))
			case !cats[q.Category]:
				l.errorf(q.Pos, join(q.path, "category"), "unknown category %q (declared: %s)", q.Category, strings.Join(gs.Categories, ", "))
			}
		}
		placeholders(q, l)
		type target struct{ doc, substring, pattern, scope string }
		seen := map[target]string{}
		for _, j := range q.Judgments {
			key := target{j.DocID, j.Substring, j.Pattern, j.Scope.String()}
			if at, dup := seen[key]; dup {
				l.warnf(j.Pos, q.path, "query %q judges the same target twice (first at %s); the highest grade wins", q.ID, at)
				continue
			}
			seen[key] = j.Pos
		}
		switch {
		case len(q.Judgments) > 0 || q.ExpectedRouting != "" || q.broken:
		case q.Awaiting:
			awaiting = append(awaiting, q.ID)
		default:
			l.errorf(q.Pos, q.path, "query %q has neither judgments nor an expected_routing (awaiting_judgments: true keeps a query that a label store will judge)", q.ID)
		}
	}
	if len(awaiting) > 0 {
		l.warnf(gs.Source, "", "%d queries await judgments (awaiting_judgments) and are not scored until a label store (dataset.labels) judges them: %s", len(awaiting), abbreviate(awaiting, 5))
	}
}

// spaceAround is the problem of an id with leading or trailing whitespace.
// Such an id is refused, not trimmed: ids are compared byte for byte (as
// trec_eval compares them, and as the engine's and a service's document ids
// are), so a trimmed "q1 " would silently become another query's id, and
// an untrimmed one could never match a run or qrels line, where whitespace
// ends an id.
const spaceAround = "has leading or trailing whitespace: ids are compared exactly, as trec_eval compares them; remove the space"

// checkIDs refuses query and document ids holding a control character (CR,
// LF, NUL, any other C0 or DEL): they would not survive a run or qrels
// file, where whitespace ends an id, and print as garbage; and ids with
// leading or trailing whitespace (see spaceAround). Every format (native,
// TREC, BEIR) is checked.
func checkIDs(gs *GoldenSet, l *problemList) {
	if gs == nil {
		return
	}
	control := func(id string) bool {
		return strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f })
	}
	spaced := func(id string) bool { return id != strings.TrimSpace(id) }
	for i := range gs.Queries {
		q := &gs.Queries[i]
		switch {
		case control(q.ID):
			l.errorf(q.Pos, join(q.path, "id"), "query id %q holds a control character: ids are printable text", q.ID)
		case spaced(q.ID):
			l.errorf(q.Pos, join(q.path, "id"), "query id %q %s", q.ID, spaceAround)
		}
		for _, j := range q.Judgments {
			switch {
			case control(j.DocID):
				l.errorf(j.Pos, join(q.path, "doc_id"), "query %q judges document id %q, which holds a control character: ids are printable text", q.ID, j.DocID)
			case spaced(j.DocID):
				l.errorf(j.Pos, join(q.path, "doc_id"), "query %q judges document id %q, which %s", q.ID, j.DocID, spaceAround)
			}
		}
	}
}

// Placeholder starts every value `tune init` leaves for the user to write in
// a golden-set skeleton; a golden set holding one is refused until it is
// filled in.
const Placeholder = "TODO:"

// placeholders reports the skeleton values of q still to be written.
func placeholders(q *Query, l *problemList) {
	if strings.HasPrefix(q.Text, Placeholder) {
		l.errorf(q.Pos, join(q.path, "query"), "query %q is still the placeholder tune init wrote (%q): write the question a user would type for the judged document(s)", q.ID, q.Text)
	}
	for _, j := range q.Judgments {
		if strings.HasPrefix(j.DocID, Placeholder) {
			l.errorf(j.Pos, join(q.path, "doc_id"), "query %q judges the placeholder %q: name a document id of the corpus", q.ID, j.DocID)
		}
	}
}
