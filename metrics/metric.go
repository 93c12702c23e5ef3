package metrics

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/internal/plainnum"
)

// Kind is a family of measures; a Metric adds its cutoff.
type Kind int

// The measures. Each doc comment gives the definition for a cutoff k; see
// the package comment for the rules shared by all.
const (
	// NDCG is sum(g_i / log2(i+1)) over ranks i <= k, divided by the same
	// sum for the ideal ranking of all judged documents (trec_eval's
	// ndcg_cut: linear gain equal to the grade).
	NDCG Kind = iota + 1
	// NDCGExp is NDCG with gain 2^g - 1 (Burges et al. 2005).
	NDCGExp
	// ERR is expected reciprocal rank (Chapelle et al. 2009):
	// sum over r <= k of (1/r) R_r prod_{i<r}(1-R_i), R = (2^g-1)/2^gmax.
	// gdeval.pl (TREC Web track) uses gmax = 4; set Options.MaxGrade to 4
	// to reproduce its ERR.
	ERR
	// Precision is relevant documents in the top k, divided by k.
	Precision
	// Recall is relevant documents in the top k over all relevant documents.
	Recall
	// F1 is the harmonic mean of Precision and Recall at k.
	F1
	// MRR is 1/rank of the first relevant document within the top k, 0 when
	// there is none; its mean over queries is the mean reciprocal rank.
	MRR
	// AP is average precision: the sum of the precision at the rank of each
	// relevant document within the top k, over all relevant documents. Its
	// mean over queries is MAP.
	AP
	// RPrecision is the precision at rank R, R the number of relevant
	// documents. It takes no cutoff.
	RPrecision
	// Success is 1 when a relevant document is in the top k, else 0.
	Success
	// Judged is the share of the top k that carry a judgment of any grade,
	// including 0 (positions past the end of the ranking count as unjudged).
	Judged
	// ExactPrecision is the share of the top k with grade >= the exact
	// threshold (Options.ExactGrade: gmax, grade 3 on the default scale).
	ExactPrecision
	// StrongPrecision is the share of the top k with grade >= the strong
	// threshold (Options.StrongGrade: 2 on the default 0-3 scale).
	StrongPrecision
	// UsefulPrecision is the share of the top k with grade >= 1.
	UsefulPrecision
	// AvgGrade is the mean grade of the top k (unjudged 0, positions past
	// the end 0), optionally divided by Metric.Divisor ("Avg_Grade@10/3").
	AvgGrade
	// GainRecall is the sum of the grades in the top k over the sum of all
	// judged grades.
	GainRecall
	// ExactSuccess is Success counting only grades >= the exact threshold:
	// trec_eval's success with -l set to it.
	ExactSuccess
	// StrongSuccess is Success counting only grades >= the strong threshold.
	StrongSuccess
	// MRRExact is MRR counting only grades >= the exact threshold: trec_eval's
	// recip_rank with -l set to it, cut at k.
	MRRExact
	// MRRStrong is MRR counting only grades >= the strong threshold.
	MRRStrong
	// RecallExact is Recall counting only grades >= the exact threshold, in
	// the top k and among all judged documents: trec_eval's recall_k with -l
	// set to it. It answers "how many of the exact answers are in the top k".
	RecallExact
	// RecallStrong is Recall counting only grades >= the strong threshold
	// ("Recall_Strong@3 >= 0.8": most strong passages in the top 3).
	RecallStrong
)

// kindNames are the canonical spellings, indexed by Kind.
var kindNames = [...]string{
	NDCG: "NDCG", NDCGExp: "NDCG_exp", ERR: "ERR", Precision: "P", Recall: "Recall", F1: "F1",
	MRR: "MRR", AP: "AP", RPrecision: "R-Precision", Success: "Success", Judged: "Judged",
	ExactPrecision: "Exact_Precision", StrongPrecision: "Strong_Precision",
	UsefulPrecision: "Useful_Precision", AvgGrade: "Avg_Grade", GainRecall: "Gain_Recall",
	ExactSuccess: "Exact_Success", StrongSuccess: "Strong_Success", MRRExact: "MRR_Exact",
	MRRStrong: "MRR_Strong", RecallExact: "Recall_Exact", RecallStrong: "Recall_Strong",
}

// kindAliases maps lower-cased accepted spellings to kinds.
var kindAliases = map[string]Kind{"precision": Precision, "ndcgexp": NDCGExp, "rprec": RPrecision,
	"rprecision": RPrecision, "r_precision": RPrecision, "map": AP, "rr": MRR,
	"success_exact": ExactSuccess, "success_strong": StrongSuccess, "exact_mrr": MRRExact, "strong_mrr": MRRStrong,
	"exact_recall": RecallExact, "strong_recall": RecallStrong}

// String returns the canonical name of k.
func (k Kind) String() string {
	if k <= 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// Metric is one measure at one cutoff, such as NDCG@20.
type Metric struct {
	Kind Kind
	// K is the cutoff; 0 means the whole ranking.
	K int
	// Divisor scales AvgGrade ("Avg_Grade@10/3" has Divisor 3); 0 means 1.
	Divisor float64
}

// String returns the canonical name, which ParseMetric reads back:
// "NDCG@20", "Avg_Grade@10/3", "AP", "R-Precision".
func (m Metric) String() string {
	var b strings.Builder
	b.WriteString(m.Kind.String())
	if m.K > 0 {
		b.WriteByte('@')
		b.WriteString(strconv.Itoa(m.K))
	}
	if m.Divisor != 0 && m.Divisor != 1 {
		b.WriteByte('/')
		b.WriteString(strconv.FormatFloat(m.Divisor, 'g', -1, 64))
	}
	return b.String()
}

// Bounded reports whether m always lies in [0, 1]. Only AvgGrade without a
// divisor covering the grade scale can exceed 1.
func (m Metric) Bounded() bool { return m.Kind != AvgGrade }

// ParseMetric reads a measure name: KIND, KIND@k or, for Avg_Grade,
// Avg_Grade@k/d. Kinds are matched case-insensitively ("ndcg@10" is
// NDCG@10); "Precision" is an alias of "P", "MAP" of "AP".
func ParseMetric(name string) (Metric, error) {
	s := strings.TrimSpace(name)
	var m Metric
	base, rest, hasK := strings.Cut(s, "@")
	div := ""
	if hasK {
		rest, div, _ = strings.Cut(rest, "/")
	} else {
		base, div, _ = strings.Cut(base, "/")
	}
	m.Kind = parseKind(base)
	if m.Kind == 0 {
		return Metric{}, fmt.Errorf("metric %q: unknown measure %q (known: %s)", name, base, strings.Join(kindNames[1:], ", "))
	}
	if hasK {
		k, ok := plainnum.Int(rest)
		if !ok || k <= 0 {
			return Metric{}, fmt.Errorf("metric %q: cutoff after @ must be a positive integer (got %q)", name, rest)
		}
		if m.Kind == RPrecision {
			return Metric{}, fmt.Errorf("metric %q: R-Precision takes no cutoff", name)
		}
		m.K = k
	}
	if div != "" || strings.Contains(s, "/") {
		if m.Kind != AvgGrade {
			return Metric{}, fmt.Errorf("metric %q: only Avg_Grade takes a divisor", name)
		}
		d, ok := plainnum.Float(div)
		if !ok || !(d > 0) {
			return Metric{}, fmt.Errorf("metric %q: divisor after / must be a positive number (got %q)", name, div)
		}
		if d != 1 { // dividing by 1 is no divisor: keep one canonical form
			m.Divisor = d
		}
	}
	return m, nil
}

// MustParseMetric is ParseMetric for names known to be valid; it panics on
// error.
func MustParseMetric(name string) Metric {
	m, err := ParseMetric(name)
	if err != nil {
		panic(err)
	}
	return m
}

func parseKind(s string) Kind {
	l := strings.ToLower(s)
	for k, n := range kindNames {
		if k > 0 && strings.ToLower(n) == l {
			return Kind(k)
		}
	}
	return kindAliases[l]
}

// Score computes m for one ranking. For many measures over the same
// ranking, a Scorecard is faster.
func (m Metric) Score(ranking []string, j Judgments, o Options) float64 {
	var p prepared
	p.prepare(ranking, NewQuery(j, o), m.depth())
	return p.score(m)
}

// depth is how many unique documents of the ranking m looks at; -1 means
// all of them.
func (m Metric) depth() int {
	if m.K == 0 {
		return -1
	}
	return m.K
}

// MinGrade is the lowest grade m counts as a hit under o: the exact or
// strong threshold for those measures, the relevant threshold for the
// other binary ones, 1 for the graded ones (any positive grade adds gain),
// 0 for Judged (which counts judged documents of any grade). A set whose
// highest grade is below it leaves m at 0 for every ranking.
func (m Metric) MinGrade(o Options) int {
	switch m.Kind {
	case Judged:
		return 0
	case ExactPrecision, ExactSuccess, MRRExact, RecallExact:
		return o.ExactGrade()
	case StrongPrecision, StrongSuccess, MRRStrong, RecallStrong:
		return o.StrongGrade()
	case NDCG, NDCGExp, ERR, AvgGrade, GainRecall, UsefulPrecision:
		return 1
	}
	return max(o.Threshold, 1)
}
