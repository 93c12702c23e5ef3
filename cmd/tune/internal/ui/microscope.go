package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/tuner/replay"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// maxCached bounds the candidate lists the microscope keeps (one entry per
// configuration, query and depth); past it the cache starts afresh.
const maxCached = 1024

// startTimeout bounds a backend restart for the microscope.
const startTimeout = 5 * time.Minute

// collected is one query's candidate lists from a search with explain.
type collected struct {
	lists   map[string][]fusion.Candidate
	routing string
}

// collect runs text against the backend on params with explain, each
// retriever's list depth deep, restarting the backend when params need
// it; the lists are cached, so re-fusing them costs no search.
func (s *Server) collect(ctx context.Context, params map[string]any, text string, depth int) (collected, error) {
	pj, err := json.Marshal(params)
	if err != nil {
		return collected{}, err
	}
	key := string(pj) + "\x00" + strconv.Itoa(depth) + "\x00" + text
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.lists[key]; ok {
		return c, nil
	}
	if s.o.Backend == nil {
		return collected{}, errors.New("no backend configured: the microscope needs one (backend.kind)")
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), startTimeout)
	defer cancel()
	if s.live == nil {
		b, err := s.o.Backend.Open(s.o.BackendDir, logWriter{s.o.Log})
		if err != nil {
			return collected{}, fmt.Errorf("open backend: %w", err)
		}
		s.live, s.applied = b, ""
	}
	if s.applied != string(pj) {
		if err := s.live.Apply(sctx, params); err != nil {
			return collected{}, fmt.Errorf("apply the trial's configuration: %w", err)
		}
		if r, ok := s.live.(backend.Restarter); !ok || r.NeedsRestart() || s.applied == "" {
			s.o.Log.Info("restarting the backend on the trial's configuration")
			if err := s.live.Restart(sctx); err != nil {
				return collected{}, fmt.Errorf("restart backend: %w", err)
			}
			if err := s.live.Ready(sctx); err != nil {
				return collected{}, fmt.Errorf("backend not ready: %w", err)
			}
		}
		s.applied = string(pj)
	}
	resp, err := s.live.Search(sctx, backend.SearchRequest{Query: text, K: s.o.K, Explain: true, Fusion: &fusion.Params{Depth: depth}})
	if err != nil {
		return collected{}, fmt.Errorf("search: %w", err)
	}
	if resp.Candidates == nil {
		return collected{}, tuner.ErrNoCandidates
	}
	if len(s.lists) >= maxCached {
		clear(s.lists)
	}
	c := collected{lists: resp.Candidates, routing: resp.Routing}
	s.lists[key] = c
	return c, nil
}

// logWriter turns the backend's log lines into the server's log.
type logWriter struct {
	l interface{ Info(string, ...any) }
}

func (w logWriter) Write(p []byte) (int, error) {
	w.l.Info(strings.TrimRight(string(p), "\n"), "from", "backend")
	return len(p), nil
}

var _ io.Writer = logWriter{}

// controls are the microscope's fusion controls as the form shows them.
type controls struct {
	Method, Normalization string
	K, Depth, MinScore    string
	Weights, Floors       []namedValue
}

type namedValue struct{ Name, Value string }

// fusedRow is one fused hit.
type fusedRow struct {
	Rank     int
	Doc      string
	Score    float64
	Grade    int
	Unjudged bool
	Ranks    []string // each retriever's rank of the document, "—" absent
	Moved    string   // against the trial's own settings: "↑3", "↓2", "new", ""
	D        docView
}

// candRow is one candidate of a retriever's list.
type candRow struct {
	Rank       int
	Doc, Chunk string
	Raw, Norm  float64
	RRF        float64
	Grade      int
	Fused      int // the document's fused rank, 0 not in the fused top
	Dropped    bool
	D          docView
}

type retrieverView struct {
	Name string
	Rows []candRow
}

type missedRow struct {
	Doc   string
	Grade int
	Ranks []string
	D     docView
}

type microData struct {
	Runs          []string
	Run           string
	Trials        []string
	Trial         string
	Queries       []scoring.Query
	QueryID, Text string
	// Find filters the query list by id or text; Matches is how many
	// queries it lists of All.
	Find         string
	Matches, All int
	// Typed is a query typed in that is not in the golden set: no grades.
	Typed      bool
	Controls   controls
	Retrievers []string
	Lists      []retrieverView
	Fused      []fusedRow
	Result     runs.QueryResult
	// Metrics are the query's primary and metrics under the controls,
	// beside the trial's recorded ones (Recorded) and the difference.
	Metrics  []metricDelta
	Recorded bool
	// recorded is the trial's record of the query, when it has one.
	recorded         *runs.QueryResult
	Missed           []missedRow
	Unjudged         int
	Err              string
	Settings         string
	CanJudge         bool
	CollectedAtDepth int
	// Changed is true when the controls differ from the trial's settings;
	// TrialPrimary and TrialLabels are then the trial's own.
	Changed      bool
	TrialPrimary float64
	TrialLabels  string
}

// metricDelta is one row of the microscope's metrics table: a score
// under the controls, the trial's recorded score and Now − Trial (Up when
// above, Down when below).
type metricDelta struct {
	Name, Now, Trial, Delta string
	Up, Down                bool
}

// newMetricDelta compares now with the recorded score, when known.
func newMetricDelta(name string, now float64, rec *runs.QueryResult, recorded func(*runs.QueryResult) (float64, bool)) metricDelta {
	m := metricDelta{Name: name, Now: fmt.Sprintf("%.4f", now), Trial: "—", Delta: "—"}
	if rec == nil {
		return m
	}
	if was, ok := recorded(rec); ok {
		d := now - was
		m.Trial, m.Delta = fmt.Sprintf("%.4f", was), fmt.Sprintf("%+.4f", d)
		m.Up, m.Down = d >= 0.00005, d <= -0.00005
	}
	return m
}

// listRows is how many candidates of each retriever the page lists.
const listRows = 30

// microscopePage runs a query live with explain on a trial's
// configuration and fuses its candidate lists under the controls' settings
// with replay.ReplayLists, the code replay records trials with.
func (s *Server) microscopePage(w http.ResponseWriter, r *http.Request) {
	d := microData{Run: r.FormValue("run"), Trial: r.FormValue("trial"), QueryID: r.FormValue("q"), Text: strings.TrimSpace(r.FormValue("text")),
		Find: strings.TrimSpace(r.FormValue("find")), CanJudge: s.o.Labels != ""}
	list, _ := s.o.Store.List()
	for i := len(list) - 1; i >= 0; i-- {
		d.Runs = append(d.Runs, list[i].ID())
	}
	if s.o.Dataset != nil {
		s.jmu.RLock()
		d.Queries = slices.Clone(s.o.Dataset.Queries) // the judge page may add judgments meanwhile
		s.jmu.RUnlock()
	}
	d.All = len(d.Queries)
	d.Queries = findQueries(d.Queries, d.Find)
	d.Matches = len(d.Queries)
	err := s.fillMicroscope(r, &d)
	if err != nil {
		d.Err = err.Error()
	}
	s.renderCode(w, userErr(err), "microscope", "Query microscope", d)
}

// fillMicroscope fills d for the run, trial and query the form names (the
// latest run, its best trial, the first query listed by default): their
// names, then the microscope itself when a backend is configured.
func (s *Server) fillMicroscope(r *http.Request, d *microData) error {
	run, err := s.resolve(d.Run)
	if err != nil {
		return err
	}
	d.Run = run.ID()
	lb, err := run.ReadLeaderboard()
	if err != nil {
		return fmt.Errorf("run %s: %v", run.ID(), err)
	}
	for _, e := range lb.Trials {
		d.Trials = append(d.Trials, e.Name)
	}
	entry, err := lb.Pick(d.Trial)
	if err != nil {
		return err
	}
	d.Trial = entry.Name
	q, err := s.pickQuery(d)
	if err != nil {
		return err
	}
	if !d.Typed {
		d.QueryID = q.ID
	}
	d.Text = q.Text
	if s.o.Backend == nil {
		return offError{errors.New("no backend configured: the microscope runs queries live (the backend setting)")}
	}
	if !d.Typed {
		if results, err := run.QueryResults(entry.Index); err == nil {
			for i := range results {
				if results[i].QueryID == q.ID {
					d.recorded, d.Recorded = &results[i], true
					break
				}
			}
		}
	}
	return s.microscope(r, d, q, entry)
}

// pickQuery is the query the form names: by its text when one was typed
// (a text not in the golden set is a typed query, without grades), else
// by id, else the first query listed.
func (s *Server) pickQuery(d *microData) (scoring.Query, error) {
	q, ok := s.query(d.QueryID)
	if d.Text != "" && (!ok || q.Text != d.Text) {
		q, ok = s.queryByText(d.Text)
	}
	switch {
	case d.Text != "" && !ok:
		d.QueryID, d.Typed = "", true
		return scoring.Query{ID: "typed", Text: d.Text}, nil
	case !ok && len(d.Queries) > 0 && d.QueryID == "":
		return d.Queries[0], nil
	case !ok && s.o.Dataset == nil:
		return q, offError{errors.New("no dataset configured: type a query")}
	case !ok && d.QueryID == "": // none listed: the find matched nothing
		return q, offError{errors.New("no query listed: find another or type one")}
	case !ok:
		return q, fmt.Errorf("no query %q in the dataset", d.QueryID)
	}
	return q, nil
}

// resolve finds a run of the store by id or prefix ("" the latest),
// refusing paths and any run outside the runs directory (a directory of
// that name where the UI was started, a link leading elsewhere): the UI
// serves the runs directory only.
func (s *Server) resolve(ref string) (*runs.Run, error) {
	if strings.ContainsAny(ref, `/\`) || strings.HasPrefix(ref, ".") {
		return nil, fmt.Errorf("run %q: give a run id: %w", ref, errOutside)
	}
	run, err := s.o.Store.Resolve(ref)
	if err != nil {
		return nil, err
	}
	if !s.o.Store.Contains(run) {
		return nil, fmt.Errorf("run %q: %w", ref, errOutside)
	}
	return run, nil
}

// errOutside refuses a run the UI does not serve.
var errOutside = errors.New("the UI serves only the runs directory's runs")

// query is the dataset's query id, with the judgments added since.
func (s *Server) query(id string) (scoring.Query, bool) {
	if s.o.Dataset == nil || id == "" {
		return scoring.Query{}, false
	}
	s.jmu.RLock()
	defer s.jmu.RUnlock()
	for _, q := range s.o.Dataset.Queries {
		if q.ID == id {
			return q, true
		}
	}
	return scoring.Query{}, false
}

// queryByText is the dataset's query whose text is text (case and spaces
// aside).
func (s *Server) queryByText(text string) (scoring.Query, bool) {
	if s.o.Dataset == nil {
		return scoring.Query{}, false
	}
	want := strings.ToLower(strings.Join(strings.Fields(text), " "))
	s.jmu.RLock()
	defer s.jmu.RUnlock()
	for _, q := range s.o.Dataset.Queries {
		if strings.ToLower(strings.Join(strings.Fields(q.Text), " ")) == want {
			return q, true
		}
	}
	return scoring.Query{}, false
}

// findQueries is the queries whose id or text holds every word of find
// (case aside); all of them when find is "".
func findQueries(qs []scoring.Query, find string) []scoring.Query {
	words := strings.Fields(strings.ToLower(find))
	if len(words) == 0 {
		return qs
	}
	out := qs[:0:0]
	for _, q := range qs {
		hay := strings.ToLower(q.ID + " " + q.Text)
		if !slices.ContainsFunc(words, func(w string) bool { return !strings.Contains(hay, w) }) {
			out = append(out, q)
		}
	}
	return out
}

// overlay is the trial's parameters with the controls the form set.
func overlay(base map[string]any, r *http.Request) (map[string]any, error) {
	p := maps.Clone(base)
	if p == nil {
		p = map[string]any{}
	}
	num := func(form, param string, integer bool) error {
		v := strings.TrimSpace(r.FormValue(form))
		if v == "" {
			if form == "min_score" || strings.HasPrefix(form, "floor.") {
				delete(p, param)
			}
			return nil
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("%s: want a number (got %q)", form, v)
		}
		if integer {
			p[param] = int(f)
		} else {
			p[param] = f
		}
		return nil
	}
	if m := r.FormValue("method"); m != "" {
		p["fusion.method"] = m
	}
	if n := r.FormValue("normalization"); n != "" {
		p["fusion.normalization"] = n
	}
	if r.Form == nil {
		return p, nil
	}
	var errs []error
	errs = append(errs, num("k", "fusion.k", false), num("depth", "fusion.depth", true))
	if _, set := r.Form["min_score"]; set {
		errs = append(errs, num("min_score", "min_score", false))
	}
	for name := range r.Form {
		if ret, ok := strings.CutPrefix(name, "w."); ok {
			errs = append(errs, num(name, "fusion.weights."+ret, false))
		}
		if ret, ok := strings.CutPrefix(name, "floor."); ok {
			errs = append(errs, num(name, ret+".min_score", false))
		}
	}
	return p, errors.Join(errs...)
}

// microscope fills d for query q on the trial entry.
func (s *Server) microscope(r *http.Request, d *microData, q scoring.Query, entry runs.Entry) error {
	res, ok := s.o.Backend.(backend.FusionResolver)
	if s.o.Backend == nil || !ok {
		return offError{errors.New("the configured backend cannot return candidate lists to re-fuse (the embedded, postgres and weaviate kinds can)")}
	}
	trialSettings, err := res.Fusion(entry.Params)
	if err != nil {
		return fmt.Errorf("trial %s: %w", entry.Name, err)
	}
	// A refused control keeps the page: the trial's own settings are shown,
	// with the controls, and the refusal.
	params, refused := overlay(entry.Params, r)
	settings := trialSettings
	if refused == nil {
		if settings, refused = res.Fusion(params); refused != nil {
			refused = fmt.Errorf("fusion controls: %w", refused)
		}
	}
	if refused != nil {
		params, settings = entry.Params, trialSettings
		refused = fmt.Errorf("%w (showing the trial's own settings)", refused)
	}
	sj, _ := json.Marshal(settings)
	d.Settings = string(sj)
	depth := max(settings.Fusion.Depth, trialSettings.Fusion.Depth, fusion.DefaultDepth)
	d.CollectedAtDepth = depth
	col, err := s.collect(r.Context(), entry.Params, q.Text, depth)
	if err != nil {
		return backendError{err}
	}
	result := replay.ReplayLists(q, col.lists, settings, s.o.Scorer, s.o.K)
	d.Result = result
	own := result
	if tj, _ := json.Marshal(trialSettings); string(tj) != d.Settings {
		own = replay.ReplayLists(q, col.lists, trialSettings, s.o.Scorer, s.o.K)
		d.Changed, d.TrialPrimary, d.TrialLabels = true, own.Primary, own.Labels
	}
	ownRank := map[string]int{}
	for i, h := range own.Top {
		ownRank[h.DocID] = i + 1
	}
	d.Retrievers = slices.Sorted(maps.Keys(col.lists))
	d.Controls = controlsOf(settings, d.Retrievers)
	d.Metrics = append(d.Metrics, newMetricDelta("primary", result.Primary, d.recorded, func(r *runs.QueryResult) (float64, bool) { return r.Primary, true }))
	for _, m := range s.o.Scorer.Metrics() {
		if v, ok := result.Scores[m]; ok {
			d.Metrics = append(d.Metrics, newMetricDelta(m, v, d.recorded, func(r *runs.QueryResult) (float64, bool) {
				was, ok := r.Scores[m]
				return was, ok
			}))
		}
	}
	ranks := newRankTable(col.lists, d.Retrievers)
	terms := queryTerms(q.Text)
	fusedRank := s.fuseRows(d, result.Top, ownRank, ranks, terms)
	for _, name := range d.Retrievers {
		d.Lists = append(d.Lists, s.retrieverList(name, col.lists[name], q, settings, fusedRank, terms))
	}
	for _, doc := range slices.Sorted(maps.Keys(q.Judgments)) {
		if g := q.Judgments[doc]; g > 0 && fusedRank[doc] == 0 {
			d.Missed = append(d.Missed, missedRow{Doc: doc, Grade: g, Ranks: ranks.row(doc), D: s.view(doc, terms, snippetChars)})
		}
	}
	slices.SortStableFunc(d.Missed, func(a, b missedRow) int { return b.Grade - a.Grade })
	return refused
}

// rankTable is each retriever's rank of a document: its first
// candidate's.
type rankTable struct {
	names []string
	of    map[string]map[string]int
}

// newRankTable indexes the lists of the retrievers named.
func newRankTable(lists map[string][]fusion.Candidate, names []string) rankTable {
	t := rankTable{names: names, of: map[string]map[string]int{}}
	for _, name := range names {
		t.of[name] = map[string]int{}
		for _, c := range lists[name] {
			if _, seen := t.of[name][c.DocID]; !seen {
				t.of[name][c.DocID] = c.Rank
			}
		}
	}
	return t
}

// row is doc's rank in each retriever's list, in the retrievers' order
// ("—" where it is absent).
func (t rankTable) row(doc string) []string {
	out := make([]string, len(t.names))
	for i, name := range t.names {
		out[i] = "—"
		if rk, ok := t.of[name][doc]; ok {
			out[i] = strconv.Itoa(rk)
		}
	}
	return out
}

// fuseRows fills d's fused ranking from top, each row with its ranks in
// the retrievers' lists and, when the controls changed the trial's
// settings, how it moved from its rank under them (ownRank); it counts the
// unjudged rows and returns each document's fused rank.
func (s *Server) fuseRows(d *microData, top []runs.RankedDoc, ownRank map[string]int, ranks rankTable, terms map[string]bool) map[string]int {
	fusedRank := map[string]int{}
	for i, h := range top {
		fusedRank[h.DocID] = i + 1
		row := fusedRow{Rank: i + 1, Doc: h.DocID, Score: h.Score, Grade: h.Grade, Unjudged: h.Grade < 0 && !d.Typed, Ranks: ranks.row(h.DocID), D: s.view(h.DocID, terms, snippetChars)}
		if d.Changed {
			row.Moved = moved(ownRank[h.DocID], i+1)
		}
		d.Fused = append(d.Fused, row)
		if row.Unjudged {
			d.Unjudged++
		}
	}
	return fusedRank
}

// moved says how a document moved to rank now from rank was (0: it was not
// in the ranking): "" when it stayed, "new", "↑N" or "↓N".
func moved(was, now int) string {
	switch {
	case was == now:
		return ""
	case was == 0:
		return "new"
	case was > now:
		return fmt.Sprintf("↑%d", was-now)
	default:
		return fmt.Sprintf("↓%d", now-was)
	}
}

// retrieverList is one retriever's candidate list as fusion saw it under
// settings: the first listRows of its depth, each with its grade, its
// fused rank, and its normalized score and RRF term, or dropped when under
// the retriever's floor.
func (s *Server) retrieverList(name string, list []fusion.Candidate, q scoring.Query, settings fusion.Settings, fusedRank map[string]int, terms map[string]bool) retrieverView {
	n := min(len(list), settings.Fusion.Depth)
	kept := settings.Floor(name, list[:n])
	raw := make([]float64, n)
	for i := range raw {
		raw[i] = list[i].Score
	}
	norm := fusion.Normalize(nil, raw[:kept], settings.Fusion.Normalization)
	view := retrieverView{Name: name}
	for i, c := range list[:min(n, listRows)] {
		g, judged := q.Judgments[c.DocID]
		if !judged {
			g = -1
		}
		row := candRow{Rank: c.Rank, Doc: c.DocID, Raw: c.Score, Grade: g, Fused: fusedRank[c.DocID], Dropped: i >= kept, D: s.view(c.DocID, terms, snippetChars/2)}
		if c.ID != c.DocID {
			row.Chunk = c.ID
		}
		if i < kept {
			row.Norm = norm[i]
			row.RRF = settings.Fusion.Weight(name) / (settings.Fusion.K + float64(c.Rank))
		}
		view.Rows = append(view.Rows, row)
	}
	return view
}

// controlsOf is the form's values for settings.
func controlsOf(s fusion.Settings, retrievers []string) controls {
	c := controls{Method: string(s.Fusion.Method), Normalization: string(s.Fusion.Normalization),
		K: strconv.FormatFloat(s.Fusion.K, 'g', -1, 64), Depth: strconv.Itoa(s.Fusion.Depth)}
	if s.MinScore != nil {
		c.MinScore = strconv.FormatFloat(*s.MinScore, 'g', -1, 64)
	}
	for _, name := range retrievers {
		c.Weights = append(c.Weights, namedValue{name, strconv.FormatFloat(s.Fusion.Weight(name), 'g', -1, 64)})
		f := ""
		if v, ok := s.Floors[name]; ok {
			f = strconv.FormatFloat(v, 'g', -1, 64)
		}
		c.Floors = append(c.Floors, namedValue{name, f})
	}
	return c
}
