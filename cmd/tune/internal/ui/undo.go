package ui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// undoEntry is a label this server stored, with what the dataset's
// judgments held for the pair before, so that undoing it restores both.
type undoEntry struct {
	Label   labels.Label
	prev    int
	hadPrev bool
}

// judgeName is the person's name the judge pages remember (a cookie).
func (s *Server) judgeName(r *http.Request) string {
	if c, err := r.Cookie(judgeCookie); err == nil {
		name, _ := url.QueryUnescape(c.Value)
		return name
	}
	return ""
}

// lastLabel is judge's last label of this session not undone yet, nil
// when none.
func (s *Server) lastLabel(judge string) *undoEntry {
	s.jmu.RLock()
	defer s.jmu.RUnlock()
	if st := s.session[judge]; len(st) > 0 {
		e := st[len(st)-1]
		return &e
	}
	return nil
}

// judgeUndo withdraws the person's last label of this session from the
// label store (labels.Store.Withdraw: the label stays in its history, and
// their label before it, if any, counts again) and restores the pair's
// judgment; then shows the page the label was given on.
func (s *Server) judgeUndo(w http.ResponseWriter, r *http.Request) {
	judge := strings.TrimSpace(r.PostForm.Get("judge"))
	if judge == "" {
		judge = s.judgeName(r)
	}
	e := s.lastLabel(judge)
	if s.o.Labels == "" || s.o.Dataset == nil || e == nil {
		s.fail(w, http.StatusBadRequest, fmt.Errorf("undo: no label of %q given in this session to undo", judge))
		return
	}
	if err := s.withdraw(r.Context(), judge, *e); err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	l := e.Label
	if r.PostForm.Get("pool") != "" {
		http.Redirect(w, r, poolURL(l.Query, l.Doc), http.StatusSeeOther)
		return
	}
	v := url.Values{"run": {r.PostForm.Get("run")}, "trial": {r.PostForm.Get("trial")}, "q": {l.Query}, "saved": {l.Doc}}
	http.Redirect(w, r, "/judge?"+v.Encode(), http.StatusSeeOther)
}

// withdraw withdraws e's label from the store, pops it off judge's
// session and puts back the pair's judgment from before it.
func (s *Server) withdraw(ctx context.Context, judge string, e undoEntry) error {
	st, err := labels.Open(ctx, s.o.Labels)
	if err != nil {
		return fmt.Errorf("label store: %w", err)
	}
	defer st.Close()
	if err := st.Withdraw(ctx, e.Label); err != nil && !errors.Is(err, labels.ErrNotStored) {
		return fmt.Errorf("label store: %w", err)
	}
	s.jmu.Lock()
	defer s.jmu.Unlock()
	if st := s.session[judge]; len(st) > 0 {
		s.session[judge] = st[:len(st)-1]
	}
	s.setJudgment(e.Label.Query, e.Label.Doc, e.prev, e.hadPrev)
	return nil
}

// setJudgment sets (had) or deletes the dataset's judgment of a pair,
// copying the query's map (pages read it without the lock). s.jmu is held.
func (s *Server) setJudgment(query, doc string, grade int, had bool) (prev int, hadPrev bool) {
	for i := range s.o.Dataset.Queries {
		q := &s.o.Dataset.Queries[i]
		if q.ID != query {
			continue
		}
		prev, hadPrev = q.Judgments[doc]
		j := make(map[string]int, len(q.Judgments)+1)
		for k, v := range q.Judgments {
			j[k] = v
		}
		if had {
			j[doc] = grade
		} else {
			delete(j, doc)
		}
		q.Judgments = j
	}
	return prev, hadPrev
}
