package ui

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/tuner/analysis"

	"github.com/fusiontune/fusiontune/tuner/replay"

	"github.com/fusiontune/fusiontune/tuner/pass"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
)

// MaxBodyBytes bounds every request body (the judge form is a few
// hundred bytes).
const MaxBodyBytes = 64 << 10

// Options are what the UI serves: the runs directory, the dataset, the
// backend and the label store, as plain values (cmd/tune builds them from
// the settings).
type Options struct {
	// Store is the runs directory.
	Store *runs.Store
	// Dataset is the configured golden set (every query, not a split):
	// the dataset, microscope and judge pages read it. Nil: those pages
	// say there is none.
	Dataset *dataset.Dataset
	// Docs returns a document's title and text (the judge pages and the
	// microscope), nil when unknown.
	Docs func(id string) (Doc, bool)
	// Scorer scores the microscope's rankings as replay does; K is the
	// hits per query a live run asks for (0: pass.DefaultDepth).
	Scorer *scoring.MetricsScorer
	K      int
	// Backend is the configured backend kind (nil: no live microscope);
	// its files go in BackendDir. Only a backend.FusionResolver can
	// re-fuse.
	Backend    backend.Factory
	BackendDir string
	// Labels is the label store URL the judge page writes to ("": judging
	// off). Its labels are merged into the dataset's judgments when the
	// server starts, by the documented precedence: the golden set's own
	// judgment wins, then human > file > llm > implicit, then the newest
	// (labels.Effective); the judge page, the microscope and the trial and
	// compare pages all show the one grade it gives.
	Labels string
	// Gold is the golden set's own judgments (query -> document ->
	// grade), before any label store was merged into Dataset; nil: the
	// Dataset's judgments are the golden set's.
	Gold map[string]map[string]int
	// Pool is the judging pool's pairs (tune judge pool's file, with the
	// query and document texts) the pool page offers, PoolFile its name;
	// nil: no pool page.
	Pool     []judge.Pair
	PoolFile string
	// Compare configures the compare page (the run's seed is filled in).
	Compare func(seed int64) analysis.CompareOptions
	// Log receives what the server says about the backend (nil: discarded).
	Log *slog.Logger
	// LoopbackOnly refuses (403) requests whose Host is a name other than
	// localhost (an IP literal passes): a page of another site that makes
	// its name resolve to 127.0.0.1 (DNS rebinding) cannot read the app or
	// its CSRF token. Set it when listening on loopback.
	LoopbackOnly bool
}

// Server is the `tune ui` web app: an http.Handler over Options.
type Server struct {
	o    Options
	mux  *http.ServeMux
	tmpl *template.Template
	csrf string

	// mu guards the backend: one configuration at a time.
	mu      sync.Mutex
	live    backend.Backend
	applied string // JSON of the params applied to live
	lists   map[string]collected
	// jmu guards the in-memory judgments the judge pages add to and the
	// session: each judge's labels given through this server, last last
	// (undo takes them back in turn).
	jmu     sync.RWMutex
	session map[string][]undoEntry
}

//go:embed templates/*.tmpl
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// New returns the server for o. Close it to stop the backend it started.
func New(o Options) (*Server, error) {
	if o.Store == nil {
		return nil, errors.New("ui: no runs store")
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Store.Derive == nil { // replayed trials' per-query results
		o.Store.Derive = replay.NewDeriver()
	}
	if o.K <= 0 {
		o.K = pass.DefaultDepth
	}
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		return nil, fmt.Errorf("ui: csrf token: %w", err)
	}
	t, err := template.New("ui").Funcs(funcs).ParseFS(templateFS, "templates/*.tmpl")
	if err != nil {
		return nil, fmt.Errorf("ui: templates: %w", err)
	}
	s := &Server{o: o, tmpl: t, csrf: hex.EncodeToString(tok), lists: map[string]collected{}, session: map[string][]undoEntry{}}
	if err := s.mergeStore(); err != nil {
		return nil, err
	}
	assets, _ := fs.Sub(assetFS, "assets")
	m := http.NewServeMux()
	m.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(assets)))
	m.HandleFunc("GET /{$}", s.runsPage)
	m.HandleFunc("GET /run/{id}", s.runPage)
	m.HandleFunc("GET /run/{id}/report", s.reportPage)
	m.HandleFunc("GET /run/{id}/trial/{trial}", s.trialPage)
	m.HandleFunc("GET /compare", s.comparePage)
	m.HandleFunc("GET /microscope", s.microscopePage)
	m.HandleFunc("GET /judge", s.judgePage)
	m.HandleFunc("POST /judge", s.judgePost)
	m.HandleFunc("POST /judge/undo", s.judgeUndo)
	m.HandleFunc("GET /judge/pool", s.poolPage)
	m.HandleFunc("GET /dataset", s.datasetPage)
	m.HandleFunc("/", s.notFoundPage)
	s.mux = m
	return s, nil
}

// ServeHTTP serves one request: security headers on every answer, the
// body size-limited, POSTs checked for the CSRF token.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if s.o.LoopbackOnly && !loopbackHost(r.Host) {
		http.Error(w, "unexpected Host "+strconv.Quote(r.Host)+": open the app as http://127.0.0.1:PORT or http://localhost:PORT", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	if r.Method == http.MethodPost {
		if err := r.ParseForm(); err != nil {
			http.Error(w, "bad form: "+err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		got := r.PostForm.Get("csrf")
		if subtle.ConstantTimeCompare([]byte(got), []byte(s.csrf)) != 1 {
			http.Error(w, "missing or wrong CSRF token: reload the page", http.StatusForbidden)
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// loopbackHost reports whether a request's Host names this machine:
// localhost or an IP literal.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	return strings.EqualFold(host, "localhost") || net.ParseIP(host) != nil
}

// Close stops the backend the microscope started, if any.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live == nil {
		return nil
	}
	err := s.live.Close()
	s.live = nil
	return err
}

// page is what every template gets: the page's data and the common bits.
type page struct {
	Title string
	Nav   string
	CSRF  string
	Pool  bool // the judge link opens the pool
	Data  any
}

// render executes template name into a buffer first, so that a failing
// template answers 500 and not half a page.
func (s *Server) render(w http.ResponseWriter, name, title string, data any) {
	s.renderCode(w, http.StatusOK, name, title, data)
}

// renderCode is render answering with HTTP status code: a page that
// shows a refused input keeps its controls and says what went wrong, with
// the status saying so too.
func (s *Server) renderCode(w http.ResponseWriter, code int, name, title string, data any) {
	var buf bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&buf, name, page{Title: title, Nav: name, CSRF: s.csrf, Pool: s.o.Pool != nil, Data: data}); err != nil {
		s.o.Log.Error("render", "page", name, "err", err)
		http.Error(w, "render "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

// fail answers an error page with code.
func (s *Server) fail(w http.ResponseWriter, code int, err error) {
	s.renderCode(w, code, "error", http.StatusText(code), err.Error())
}

// userErr is the HTTP status of a page whose request failed with err:
// 404 for a run or trial that does not exist, 502 when the backend
// failed, 200 for what the app was started without (off: the page says
// so), 400 for any other refused input (a bad reference or form).
func userErr(err error) int {
	var ie *inputerr.Error
	var o offError
	var b backendError
	switch {
	case err == nil, errors.As(err, &o):
		return http.StatusOK
	case errors.Is(err, runs.ErrNotFound), errors.Is(err, runs.ErrNoRuns), errors.As(err, &ie):
		return http.StatusNotFound
	case errors.As(err, &b):
		return http.StatusBadGateway
	}
	return http.StatusBadRequest
}

// offError is what a page cannot show because the app was started
// without it (no dataset, no backend): the page answers 200 and says so.
type offError struct{ error }

// backendError is a failure of the backend, not of the request.
type backendError struct{ error }

func (e offError) Unwrap() error     { return e.error }
func (e backendError) Unwrap() error { return e.error }

// notFoundPage answers an unknown path: 404 with the app's pages.
func (s *Server) notFoundPage(w http.ResponseWriter, r *http.Request) {
	s.fail(w, http.StatusNotFound, fmt.Errorf("no page %q: the app has the runs (/), a run (/run/RUN), compare (/compare), the microscope (/microscope), judging (/judge) and the dataset (/dataset)", r.URL.Path))
}

var funcs = template.FuncMap{
	"f4":      func(v float64) string { return fmt.Sprintf("%.4f", v) },
	"f3":      func(v float64) string { return fmt.Sprintf("%.3f", v) },
	"pct":     func(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) },
	"join":    strings.Join,
	"urlq":    urlq,
	"urlpath": urlPath,
	"grade":   gradeLabel,
	"add":     func(a, b int) int { return a + b },
	"list":    func(xs ...string) []string { return xs },
	"list2":   func(a, b any) []any { return []any{a, b} },
	"deref":   func(p *float64) float64 { return *p },
	"ptr": func(p *float64) string {
		if p == nil {
			return "—"
		}
		return fmt.Sprintf("%+.4f", *p)
	},
}

// gradeLabel is a grade as the label sequence writes it: L0..L3, L? for
// an unjudged document (-1).
func gradeLabel(g int) string {
	if g < 0 {
		return "L?"
	}
	return fmt.Sprintf("L%d", g)
}

func f2(v float64) string { return fmt.Sprintf("%.2f", v) }
