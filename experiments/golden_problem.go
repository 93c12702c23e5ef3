package experiments

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ErrInvalid is wrapped by every Problems error, so callers can tell invalid
// user input (exit 2) from other failures with errors.Is.
var ErrInvalid = errors.New("invalid input")

// Problem is one defect found in a user file: where it is, which field, and
// what was expected. It formats as `file:line:col: field: message`; Pos and
// Field are left out when unknown.
type Problem struct {
	Pos   string // "file:line:col", "file:line" or "file"
	Field string // field path, as in queries[3].expected_passages[0].relevance
	Msg   string // what is wrong and what was expected
}

// Error formats p as `pos: field: message`.
func (p Problem) Error() string {
	var b strings.Builder
	if p.Pos != "" {
		b.WriteString(p.Pos)
		b.WriteString(": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Problems lists every defect found in a set of files at once. As an error
// it prints one problem per line. Callers recover the list with errors.As.
type Problems []Problem

// Error prints one problem per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap makes errors.Is(err, ErrInvalid) true for every Problems.
func (ps Problems) Unwrap() error { return ErrInvalid }

// problemList accumulates problems and warnings for one load.
type problemList struct {
	errs  Problems
	warns Problems
}

func (l *problemList) errorf(pos, field, format string, args ...any) {
	l.errs = append(l.errs, Problem{Pos: pos, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (l *problemList) warnf(pos, field, format string, args ...any) {
	l.warns = append(l.warns, Problem{Pos: pos, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// err returns the accumulated problems as an error, or nil when there are
// none, in file order: files as first met, then by line and column.
func (l *problemList) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	sortProblems(l.errs)
	sortProblems(l.warns)
	return l.errs
}

func sortProblems(ps Problems) {
	type key struct{ file, line, col int }
	files := map[string]int{}
	keys := make(map[int]key, len(ps))
	for i, p := range ps {
		f, line, col := splitPos(p.Pos)
		if _, ok := files[f]; !ok {
			files[f] = len(files)
		}
		keys[i] = key{files[f], line, col}
	}
	idx := make([]int, len(ps))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ka, kb := keys[idx[a]], keys[idx[b]]
		if ka.file != kb.file {
			return ka.file < kb.file
		}
		if ka.line != kb.line {
			return ka.line < kb.line
		}
		return ka.col < kb.col
	})
	sorted := make(Problems, len(ps))
	for i, j := range idx {
		sorted[i] = ps[j]
	}
	copy(ps, sorted)
}

// splitPos splits "file:line:col" (line and col optional) into its parts.
func splitPos(pos string) (file string, line, col int) {
	file = pos
	var nums []int
	for len(nums) < 2 {
		i := strings.LastIndexByte(file, ':')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(file[i+1:])
		if err != nil {
			break
		}
		nums = append([]int{n}, nums...)
		file = file[:i]
	}
	switch len(nums) {
	case 2:
		return file, nums[0], nums[1]
	case 1:
		return file, nums[0], 0
	}
	return file, 0, 0
}
