package ui

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// snippetChars is about how much of a document's text the microscope's
// fused list shows (the retrievers' lists half as much).
const snippetChars = 220

// docView is a document as a list row shows it: its title and a snippet of
// its text, query terms marked.
type docView struct {
	Title, Snippet []segment
}

// view is the document id's title and a snippet of about n bytes for
// terms; empty without a corpus or for an unknown id.
func (s *Server) view(id string, terms map[string]bool, n int) docView {
	if s.o.Docs == nil {
		return docView{}
	}
	d, ok := s.o.Docs(id)
	if !ok {
		return docView{}
	}
	return docView{Title: highlight(d.Title, terms), Snippet: highlight(snippet(d.Text, terms, n), terms)}
}

// snippet is about n bytes of text around its first query term (from the
// start when none is in it), cut at spaces, with "…" where text was left
// out.
func snippet(text string, terms map[string]bool, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if len(text) <= n {
		return text
	}
	start := firstTerm(text, terms)
	start = max(0, start-n/3)
	if start+n > len(text) {
		start = max(0, len(text)-n)
	}
	if start > 0 { // begin at a word
		if i := strings.IndexByte(text[start:], ' '); i >= 0 && i < 12 {
			start += i + 1
		}
	}
	end := min(len(text), start+n)
	if end < len(text) {
		if i := strings.LastIndexByte(text[start:end], ' '); i > n/2 {
			end = start + i
		}
		for end > start && !utf8.RuneStart(text[end]) {
			end--
		}
	}
	for start < end && !utf8.RuneStart(text[start]) {
		start++
	}
	out := text[start:end]
	if start > 0 {
		out = "…" + out
	}
	if end < len(text) {
		out += "…"
	}
	return out
}

// firstTerm is the byte offset of text's first word that is a query term,
// 0 when none is.
func firstTerm(text string, terms map[string]bool) int {
	start := -1
	for i, r := range text {
		w := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case w && start < 0:
			start = i
		case !w && start >= 0:
			if matches(strings.ToLower(text[start:i]), terms) {
				return start
			}
			start = -1
		}
	}
	if start >= 0 && matches(strings.ToLower(text[start:]), terms) {
		return start
	}
	return 0
}
