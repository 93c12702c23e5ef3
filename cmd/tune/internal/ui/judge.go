package ui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// judgeCookie remembers the person's name between labels, for
// judgeCookieAge seconds (a year).
const (
	judgeCookie    = "tune_ui_judge"
	judgeCookieAge = 365 * 24 * 3600
)

// maxJudgeName bounds a judge's name.
const maxJudgeName = 100

// segment is a run of document text, Hit when it is a query term.
type segment struct {
	Text string
	Hit  bool
}

// judgeHit is one hit of the query on the judge page.
type judgeHit struct {
	Rank     int
	Doc      string
	Grade    int       // current grade: the store's latest label, else the golden set's; -1 none
	By       string    // who gave it: a judge's name or "golden set"
	Gold     bool      // the golden set's grade: it wins over any label
	Title    []segment // the document's title, query terms marked
	Segments []segment
}

type judgeData struct {
	Run, Trial, Judge string
	Query             scoring.Query
	Prev, Next        string // neighbouring query ids with unjudged hits
	Hits              []judgeHit
	Grades            []int
	Rubric            []string // what each grade means (rubric), by grade
	QueryJudged       int
	PoolJudged, Pool  int
	Err               string
	Saved             string
	Undo              *undoEntry
}

// judgeContext is what both judge handlers need: the run's trial and the
// labels stored so far.
func (s *Server) judgeContext(ctx context.Context, runRef, trial string) (*runs.Run, runs.Entry, map[string]map[string]labels.Label, error) {
	if s.o.Dataset == nil {
		return nil, runs.Entry{}, nil, errors.New("no dataset configured")
	}
	run, err := s.resolve(runRef)
	if err != nil {
		return nil, runs.Entry{}, nil, err
	}
	lb, err := run.ReadLeaderboard()
	if err != nil {
		return nil, runs.Entry{}, nil, fmt.Errorf("run %s: %w", run.ID(), err)
	}
	e, err := lb.Pick(trial)
	if err != nil {
		return nil, runs.Entry{}, nil, err
	}
	stored, err := s.storedLabels(ctx)
	return run, e, stored, err
}

// storedLabels is the winning label of every pair of the dataset in the
// label store (query -> doc -> label; each judge's latest, the best by
// labels.Better); none when the store does not exist yet.
func (s *Server) storedLabels(ctx context.Context) (map[string]map[string]labels.Label, error) {
	out := map[string]map[string]labels.Label{}
	if s.o.Labels == "" || labels.Absent(s.o.Labels) {
		return out, nil
	}
	st, err := labels.Open(ctx, s.o.Labels)
	if err != nil {
		return nil, fmt.Errorf("label store: %w", err)
	}
	defer st.Close()
	ls, err := st.Latest(ctx, s.o.Dataset.DatasetID())
	if err != nil {
		return nil, fmt.Errorf("label store: %w", err)
	}
	for _, l := range ls {
		if out[l.Query] == nil {
			out[l.Query] = map[string]labels.Label{}
		}
		if have, ok := out[l.Query][l.Doc]; !ok || labels.Better(l, have) {
			out[l.Query][l.Doc] = l
		}
	}
	return out, nil
}

// judgePage shows a query's hits in a trial's top 10 with the current
// grades and buttons (keys 0..max) to label them.
func (s *Server) judgePage(w http.ResponseWriter, r *http.Request) {
	d := judgeData{Run: r.FormValue("run"), Trial: r.FormValue("trial"), Saved: r.FormValue("saved"), Judge: s.judgeName(r)}
	if s.o.Labels == "" {
		d.Err = "no label store configured (the labels setting): judging is off"
		s.render(w, "judge", "Judge", d)
		return
	}
	want, err := s.fillJudge(r, &d)
	if err != nil {
		d.Err = err.Error()
		s.render(w, "judge", "Judge", d)
		return
	}
	d.Undo = s.lastLabel(d.Judge)
	s.render(w, "judge", "Judge "+want, d)
}

// fillJudge fills d for the query the form names in the trial's pool (by
// default the first with an unjudged hit): the scale's grades, the pool's
// counts, the neighbouring queries with unjudged hits, and the query's
// hits with their grades. It returns the query's id.
func (s *Server) fillJudge(r *http.Request, d *judgeData) (string, error) {
	run, entry, stored, err := s.judgeContext(r.Context(), d.Run, d.Trial)
	if err != nil {
		return "", err
	}
	d.Run, d.Trial = run.ID(), entry.Name
	results, err := run.QueryResults(entry.Index)
	if err != nil {
		return "", err
	}
	scale := experiments.DefaultScale()
	if s.o.Dataset.Golden != nil {
		scale = s.o.Dataset.Golden.Scale
	}
	for g := 0; g <= scale.Max; g++ {
		d.Grades = append(d.Grades, g)
		d.Rubric = append(d.Rubric, rubric(scale, g))
	}
	gr := grades{s: s, stored: stored}
	order, unjudged := s.judgePool(d, results, gr)
	want := r.FormValue("q")
	if want == "" {
		want = firstUnjudged(order, unjudged)
	}
	pos := -1
	for i, id := range order {
		if id == want {
			pos = i
		}
	}
	if pos < 0 {
		return "", fmt.Errorf("query %q: not among trial %s's recorded queries", want, entry.Name)
	}
	d.Prev, d.Next = unjudgedAround(order, unjudged, pos)
	d.Query, _ = s.query(want)
	s.judgeHits(d, want, results, gr)
	return want, nil
}

// grades are a query's documents' current grades: the labels stored so
// far, else the golden set's.
type grades struct {
	s      *Server
	stored map[string]map[string]labels.Label
}

// of is doc's grade for q and who gave it (Server.gradeOf); -1 when it is
// unjudged.
func (gr grades) of(q scoring.Query, doc string) (int, string) {
	return gr.s.gradeOf(q, doc, gr.stored)
}

// judgePool counts the pool, every query's top 10 in the trial (results),
// and its judged documents into d, and returns the pool's queries in
// order and those with an unjudged hit.
func (s *Server) judgePool(d *judgeData, results []runs.QueryResult, gr grades) ([]string, map[string]bool) {
	var order []string
	unjudged := map[string]bool{}
	for _, res := range results {
		q, ok := s.query(res.QueryID)
		if !ok {
			continue
		}
		order = append(order, q.ID)
		for _, h := range res.Top[:min(len(res.Top), 10)] {
			d.Pool++
			if g, _ := gr.of(q, h.DocID); g >= 0 {
				d.PoolJudged++
			} else {
				unjudged[q.ID] = true
			}
		}
	}
	return order, unjudged
}

// firstUnjudged is the first query of order with an unjudged hit; "" when
// none has.
func firstUnjudged(order []string, unjudged map[string]bool) string {
	for _, id := range order {
		if unjudged[id] {
			return id
		}
	}
	return ""
}

// unjudgedAround is the nearest queries before and after order[pos] with
// an unjudged hit ("" when there is none on that side).
func unjudgedAround(order []string, unjudged map[string]bool, pos int) (prev, next string) {
	for i := pos - 1; i >= 0 && prev == ""; i-- {
		if unjudged[order[i]] {
			prev = order[i]
		}
	}
	for i := pos + 1; i < len(order) && next == ""; i++ {
		if unjudged[order[i]] {
			next = order[i]
		}
	}
	return prev, next
}

// judgeHits lists the top 10 of query want (d.Query) in the trial
// (results) with their grades, who gave them and the documents' text, the
// query's terms highlighted, and counts those judged.
func (s *Server) judgeHits(d *judgeData, want string, results []runs.QueryResult, gr grades) {
	terms := queryTerms(d.Query.Text)
	for _, res := range results {
		if res.QueryID != want {
			continue
		}
		for i, h := range res.Top[:min(len(res.Top), 10)] {
			g, by := gr.of(d.Query, h.DocID)
			if g >= 0 {
				d.QueryJudged++
			}
			var doc Doc
			if s.o.Docs != nil {
				doc, _ = s.o.Docs(h.DocID)
			}
			d.Hits = append(d.Hits, judgeHit{Rank: i + 1, Doc: h.DocID, Grade: g, By: by, Gold: by == goldBy, Title: highlight(doc.Title, terms), Segments: highlight(doc.Text, terms)})
		}
	}
}

// judgePost stores one label: the person's grade of a (query, document)
// pair, then shows the judge page again.
func (s *Server) judgePost(w http.ResponseWriter, r *http.Request) {
	if s.o.Labels == "" || s.o.Dataset == nil {
		s.fail(w, http.StatusBadRequest, errors.New("judging is off: no label store or dataset configured"))
		return
	}
	judge := strings.TrimSpace(r.PostForm.Get("judge"))
	qid, doc, gradeText := r.PostForm.Get("q"), r.PostForm.Get("doc"), r.PostForm.Get("grade")
	if pick := r.PostForm.Get("pick"); pick != "" { // a grade button: "DOC|GRADE"
		if i := strings.LastIndexByte(pick, '|'); i >= 0 {
			doc, gradeText = pick[:i], pick[i+1:]
		}
	}
	grade, gerr := strconv.Atoi(gradeText)
	scale := experiments.DefaultScale()
	if s.o.Dataset.Golden != nil {
		scale = s.o.Dataset.Golden.Scale
	}
	var problems []string
	switch {
	case judge == "":
		problems = append(problems, "judge: give your name")
	case len(judge) > maxJudgeName:
		problems = append(problems, fmt.Sprintf("judge: at most %d characters", maxJudgeName))
	case judge == labels.SourceGold || strings.HasPrefix(judge, "llm:") || strings.HasPrefix(judge, "file:"):
		problems = append(problems, fmt.Sprintf("judge: %q is reserved for another source; give a person's name", judge))
	}
	if gerr != nil || grade < 0 || grade > scale.Max {
		problems = append(problems, fmt.Sprintf("grade: want an integer in [0, %d] (got %q)", scale.Max, gradeText))
	}
	if _, ok := s.query(qid); !ok {
		problems = append(problems, fmt.Sprintf("q: no query %q in the dataset", qid))
	}
	if s.o.Docs != nil {
		if _, ok := s.o.Docs(doc); !ok {
			problems = append(problems, fmt.Sprintf("doc: no document %q in the corpus", doc))
		}
	}
	if len(problems) > 0 {
		s.fail(w, http.StatusBadRequest, errors.New(strings.Join(problems, "; ")))
		return
	}
	l := labels.Label{Dataset: s.o.Dataset.DatasetID(), Query: qid, Doc: doc, Grade: grade, Judge: judge, Source: labels.SourceHuman}
	if err := s.appendLabel(r.Context(), l); err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: judgeCookie, Value: url.QueryEscape(judge), Path: "/", MaxAge: judgeCookieAge, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	if r.PostForm.Get("pool") != "" {
		http.Redirect(w, r, poolURL(qid, doc), http.StatusSeeOther)
		return
	}
	v := url.Values{"run": {r.PostForm.Get("run")}, "trial": {r.PostForm.Get("trial")}, "q": {qid}, "saved": {doc}}
	http.Redirect(w, r, "/judge?"+v.Encode(), http.StatusSeeOther)
}

// appendLabel writes l to the label store and into the judgments the
// microscope grades with, and remembers it as its judge's last label of
// this session (undo).
func (s *Server) appendLabel(ctx context.Context, l labels.Label) error {
	st, err := labels.Open(ctx, s.o.Labels)
	if err != nil {
		return fmt.Errorf("label store: %w", err)
	}
	defer st.Close()
	l.Time = time.Now().UTC() // Withdraw names the label by its time
	if err := st.Append(ctx, []labels.Label{l}); err != nil {
		return fmt.Errorf("label store: %w", err)
	}
	s.jmu.Lock()
	defer s.jmu.Unlock()
	prev, had := s.o.Gold[l.Query][l.Doc], true
	if !s.isGold(l.Query, l.Doc) { // the golden set's grade wins: the judgments keep it
		prev, had = s.setJudgment(l.Query, l.Doc, l.Grade, true)
	}
	s.session[l.Judge] = append(s.session[l.Judge], undoEntry{Label: l, prev: prev, hadPrev: had})
	return nil
}

// stopwords are common English words never highlighted.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the and for with that this from are was were has have had not but
		how what when where which who why can does did your you our its into than then them they their there
		there about after before over under between while each other some any all more most very just also`) {
		stopwords[w] = true
	}
}

// queryTerms are the lower-cased words of a query worth highlighting
// (three letters or more, not a stopword).
func queryTerms(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) >= 3 && !stopwords[w] {
			out[w] = true
		}
	}
	return out
}

// highlight splits text into runs, marking the words that are query
// terms (by lower-cased word, or a prefix of four letters or more).
func highlight(text string, terms map[string]bool) []segment {
	var out []segment
	start, inWord := 0, false
	flush := func(end int, word bool) {
		if end <= start {
			return
		}
		t := text[start:end]
		hit := word && matches(strings.ToLower(t), terms)
		if n := len(out); n > 0 && !out[n-1].Hit && !hit {
			out[n-1].Text += t
		} else {
			out = append(out, segment{Text: t, Hit: hit})
		}
		start = end
	}
	for i, r := range text {
		w := unicode.IsLetter(r) || unicode.IsDigit(r)
		if w != inWord {
			flush(i, inWord)
			inWord = w
		}
	}
	flush(len(text), inWord)
	return out
}

func matches(word string, terms map[string]bool) bool {
	if terms[word] {
		return true
	}
	for t := range terms {
		if len(t) >= 5 && len(word) >= 5 && t[:5] == word[:5] {
			return true
		}
	}
	return false
}
