package harvest

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/fusiontune/fusiontune/internal/querylog"
)

// Sampling methods.
const (
	SampleRandom = "random" // uniformly at random, without replacement
	SampleTop    = "top"    // the most frequent first (ties: normalised text)
	SamplePPS    = "pps"    // probability proportional to frequency, without replacement
)

// MaxN is the largest sample size Options.N accepts.
const MaxN = 1_000_000

// Query is one distinct logged query: all the searches whose text
// normalises to Norm.
type Query struct {
	// ID is stable across harvests: "h-" and the first 12 hex digits of
	// the SHA-256 of Norm.
	ID string
	// Text is the most frequent spelling (ties: the earliest seen).
	Text string
	// Norm is the normalised text (Normalize).
	Norm string
	// Category is the most frequent category logged with it ("" when
	// none was; ties: the smallest name).
	Category string
	// Count is the number of searches.
	Count int
	// First and Last are the times of the first and last search.
	First, Last time.Time
	// Requests are the searches' request ids, in log order.
	Requests []string
}

// Normalize is the text queries are grouped by: lower case, runs of white
// space and punctuation between words reduced to one space, no leading or
// trailing punctuation. "Return a damaged item?" and "return  a damaged
// item" are one query; "e-mail" stays apart from "e mail" only through its
// hyphen becoming a space, so they are one too.
func Normalize(text string) string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.IsPunct(r) && r != '\'' && r != '’'
	})
	return strings.Join(words, " ")
}

// Clean returns text as a golden set may hold it: every control
// character (NUL, line feed, tab, ...) a space, runs of spaces one,
// the ends trimmed; changed is true when a control character was
// replaced.
func Clean(text string) (clean string, changed bool) {
	if strings.IndexFunc(text, unicode.IsControl) < 0 {
		return strings.TrimSpace(text), false
	}
	return strings.Join(strings.FieldsFunc(text, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " "), true
}

// QueryID is the stable id of a normalised query text.
func QueryID(norm string) string {
	sum := sha256.Sum256([]byte(norm))
	return "h-" + hex.EncodeToString(sum[:6])
}

// Group groups the logged searches by normalised text, sorted by Norm.
// Searches whose text normalises to nothing (only punctuation) are left
// out and counted in the second result.
func Group(searches []querylog.Event) ([]Query, int) {
	type acc struct {
		q         *Query
		spellings map[string]int
		firstAt   map[string]int
		cats      map[string]int
	}
	by := map[string]*acc{}
	empty := 0
	for i, s := range searches {
		norm := Normalize(s.Query)
		if norm == "" {
			empty++
			continue
		}
		a := by[norm]
		if a == nil {
			a = &acc{q: &Query{ID: QueryID(norm), Norm: norm, First: s.Time, Last: s.Time},
				spellings: map[string]int{}, firstAt: map[string]int{}, cats: map[string]int{}}
			by[norm] = a
		}
		q := a.q
		q.Count++
		q.Requests = append(q.Requests, s.RequestID)
		if s.Time.Before(q.First) {
			q.First = s.Time
		}
		if s.Time.After(q.Last) {
			q.Last = s.Time
		}
		text, _ := Clean(s.Query)
		if _, ok := a.firstAt[text]; !ok {
			a.firstAt[text] = i
		}
		a.spellings[text]++
		if s.Category != "" {
			a.cats[s.Category]++
		}
	}
	out := make([]Query, 0, len(by))
	for _, a := range by {
		a.q.Text = mostFrequent(a.spellings, func(x, y string) int { return cmp.Compare(a.firstAt[x], a.firstAt[y]) })
		a.q.Category = mostFrequent(a.cats, strings.Compare)
		out = append(out, *a.q)
	}
	slices.SortFunc(out, func(x, y Query) int { return strings.Compare(x.Norm, y.Norm) })
	return out, empty
}

// mostFrequent returns the key with the largest count, ties broken by
// tie (the smaller first); "" for none.
func mostFrequent(counts map[string]int, tie func(a, b string) int) string {
	best, n := "", -1
	for k, c := range counts {
		if c > n || c == n && tie(k, best) < 0 {
			best, n = k, c
		}
	}
	return best
}

// Options says how many queries to sample and how.
type Options struct {
	// Method is SampleRandom, SampleTop or SamplePPS.
	Method string
	// N is the sample size, [1, MaxN]; all queries when there are fewer.
	N int
	// Seed makes random and pps samples reproducible.
	Seed int64
	// Stratify samples each category in proportion to its number of
	// distinct queries (largest remainder), when any query has one.
	Stratify bool
}

// Validate returns the options' problems as "field: what was expected".
func (o Options) Validate() []string {
	var out []string
	switch o.Method {
	case SampleRandom, SampleTop, SamplePPS:
	default:
		out = append(out, fmt.Sprintf("sample: must be random, top or pps (got %q)", o.Method))
	}
	if o.N < 1 || o.N > MaxN {
		out = append(out, fmt.Sprintf("n: must be in [1, %d] (got %d)", MaxN, o.N))
	}
	return out
}

// Sample picks opt.N of qs (sorted by Norm, as Group returns them) and
// returns them in the order picked. The same queries, options and seed
// give the same sample.
func Sample(qs []Query, opt Options) ([]Query, error) {
	if p := opt.Validate(); len(p) > 0 {
		return nil, fmt.Errorf("harvest: %s", strings.Join(p, "; "))
	}
	if !opt.Stratify || !anyCategory(qs) {
		return pick(qs, opt.N, opt), nil
	}
	strata := map[string][]Query{}
	var names []string
	for _, q := range qs {
		if _, ok := strata[q.Category]; !ok {
			names = append(names, q.Category)
		}
		strata[q.Category] = append(strata[q.Category], q)
	}
	slices.Sort(names)
	var out []Query
	for i, name := range names {
		sub := opt
		sub.Seed = opt.Seed + int64(i)*0x9e3779b9
		out = append(out, pick(strata[name], allocation(strata, names, opt.N)[name], sub)...)
	}
	return out, nil
}

func anyCategory(qs []Query) bool {
	for _, q := range qs {
		if q.Category != "" {
			return true
		}
	}
	return false
}

// allocation shares n among the strata in proportion to their sizes by
// the largest-remainder method (ties: the category name), never more than
// a stratum holds.
func allocation(strata map[string][]Query, names []string, n int) map[string]int {
	total := 0
	for _, name := range names {
		total += len(strata[name])
	}
	if n >= total {
		out := map[string]int{}
		for _, name := range names {
			out[name] = len(strata[name])
		}
		return out
	}
	out := map[string]int{}
	type rem struct {
		name string
		frac float64
	}
	var rems []rem
	given := 0
	for _, name := range names {
		exact := float64(n) * float64(len(strata[name])) / float64(total)
		out[name] = int(math.Floor(exact))
		given += out[name]
		rems = append(rems, rem{name, exact - math.Floor(exact)})
	}
	slices.SortStableFunc(rems, func(a, b rem) int { return cmp.Compare(b.frac, a.frac) })
	for i := 0; given < n; i = (i + 1) % len(rems) {
		if out[rems[i].name] < len(strata[rems[i].name]) {
			out[rems[i].name]++
			given++
		}
	}
	return out
}

// pick samples n of qs with opt.Method.
func pick(qs []Query, n int, opt Options) []Query {
	if n >= len(qs) {
		n = len(qs)
	}
	rng := rand.New(rand.NewPCG(uint64(opt.Seed), 0x5851f42d4c957f2d))
	switch opt.Method {
	case SampleTop:
		out := slices.Clone(qs)
		slices.SortStableFunc(out, func(a, b Query) int { return cmp.Compare(b.Count, a.Count) })
		return out[:n]
	case SamplePPS:
		// Efraimidis and Spirakis (2006): weighted sampling without
		// replacement by the n largest keys u^(1/w), u uniform in (0, 1).
		type keyed struct {
			q   Query
			key float64
		}
		ks := make([]keyed, len(qs))
		for i, q := range qs {
			u := 1 - rng.Float64() // (0, 1]
			ks[i] = keyed{q, math.Log(u) / float64(q.Count)}
		}
		slices.SortStableFunc(ks, func(a, b keyed) int { return cmp.Compare(b.key, a.key) })
		out := make([]Query, n)
		for i := range out {
			out[i] = ks[i].q
		}
		return out
	}
	out := slices.Clone(qs)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out[:n]
}
