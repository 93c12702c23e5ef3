package fusion

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/fusiontune/fusiontune/internal/userfile"
)

// A Policy chooses the fusion settings of each query from cheap features
// of the query and of its candidate lists, known before fusion: a shallow
// decision tree whose leaves name one of a few settings (arms). The
// embedded engine applies one at query time (fusion.policy in its config)
// and the tuner's replay evaluates one offline, both through Choose over
// QueryFeatures, so both rank every query alike. `tune adapt` learns one
// from a run's trial × query matrix.
//
// A policy is a small JSON document (see ParsePolicy):
//
//	{"version": 1, "metric": "NDCG@10", "depth": 100,
//	 "arms": [{"Fusion": {...}, "MinScore": null, "Passage": false}, ...],
//	 "tree": {"feature": "dense.top", "threshold": 0.41,
//	          "below": {"arm": 0}, "above": {"arm": 3}}}
type Policy struct {
	// Version is the document's format version, PolicyVersion.
	Version int `json:"version"`
	// Metric is the per-query metric the policy was learned on
	// (informational).
	Metric string `json:"metric,omitempty"`
	// Depth is how deep each retriever's list is read for the features
	// (the candidate depth the policy was learned on): 1..MaxPolicyDepth.
	// An engine applying the policy retrieves at least this deep.
	Depth int `json:"depth"`
	// Arms are the settings the tree chooses from (Formula FormulaOwn).
	Arms []Settings `json:"arms"`
	// Tree is the decision tree; a tree that is one leaf applies one arm
	// to every query.
	Tree *PolicyNode `json:"tree"`
	// Evaluation is how the policy did on held-out folds when it was
	// learned (informational for the engine; promotion reads Promotable).
	Evaluation *PolicyEvaluation `json:"evaluation,omitempty"`
}

// PolicyNode is one node of a policy's tree: a leaf (Arm set, Feature
// empty) or a split sending a query whose Feature is below Threshold to
// Below and any other to Above.
type PolicyNode struct {
	Feature   string      `json:"feature,omitempty"`
	Threshold float64     `json:"threshold,omitempty"`
	Below     *PolicyNode `json:"below,omitempty"`
	Above     *PolicyNode `json:"above,omitempty"`
	// Arm is a leaf's index into Policy.Arms.
	Arm int `json:"arm"`
	// Queries is how many training queries reached the node
	// (informational).
	Queries int `json:"queries,omitempty"`
}

// PolicyEvaluation records a policy's cross-validated evaluation.
type PolicyEvaluation struct {
	Folds      int     `json:"folds"`
	Seed       int64   `json:"seed"`
	Queries    int     `json:"queries"`
	Global     float64 `json:"global"` // the best global setting, chosen on the training folds
	Policy     float64 `json:"policy"` // the policy learned on the training folds
	Oracle     float64 `json:"oracle"` // the best arm of every query
	P          float64 `json:"p"`      // paired randomization test, policy vs global
	Promotable bool    `json:"promotable"`
	Decision   string  `json:"decision"`
}

// Policy limits and format.
const (
	PolicyVersion   = 1
	MaxPolicyDepth  = 10000 // the engine's MaxDepth
	MaxPolicyArms   = 256
	MaxPolicyLevels = 8 // splits on a root-to-leaf path
	// FeatureTop is how many candidates of each list the overlap feature
	// compares.
	FeatureTop = 10
)

// Feature names, as policies name them. Per-retriever features are
// "<retriever>.<name>" (bm25.top, dense.gap).
const (
	FeatureQueryTokens = "query_tokens" // tokens of the query text (Tokens)
	FeatureOverlap     = "overlap10"    // documents in the top FeatureTop of both lists
	FeatureMatches     = "bm25.matches" // BM25 candidates within the policy's depth
	FeatureSuffixTop   = ".top"         // a retriever's top raw score (0 with no candidate)
	FeatureSuffixGap   = ".gap"         // its top-1 minus top-2 score (top when one candidate, 0 with none)
)

// PolicyFeatures returns the names of the features QueryFeatures computes
// for the named retrievers, sorted.
func PolicyFeatures(retrievers []string) []string {
	names := []string{FeatureQueryTokens}
	for _, r := range retrievers {
		names = append(names, r+FeatureSuffixTop, r+FeatureSuffixGap)
		if r == "bm25" {
			names = append(names, FeatureMatches)
		}
	}
	if len(retrievers) == 2 {
		names = append(names, FeatureOverlap)
	}
	sort.Strings(names)
	return names
}

// Tokens counts the tokens of a query: maximal runs of letters and digits.
func Tokens(text string) int {
	return len(strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
}

// QueryFeatures computes the features of one query from its text and its
// candidate lists as retrieved (best first, before floors), each read to
// depth candidates. The engine and the replay call it on the same lists,
// so they compute the same values.
func QueryFeatures(text string, lists map[string][]Candidate, depth int) map[string]float64 {
	names := make([]string, 0, len(lists))
	for name := range lists {
		names = append(names, name)
	}
	sort.Strings(names)
	f := map[string]float64{FeatureQueryTokens: float64(Tokens(text))}
	for _, name := range names {
		l := lists[name]
		if len(l) > depth {
			l = l[:depth]
		}
		top, gap := 0.0, 0.0
		if len(l) > 0 {
			top, gap = l[0].Score, l[0].Score
		}
		if len(l) > 1 {
			gap = l[0].Score - l[1].Score
		}
		f[name+FeatureSuffixTop], f[name+FeatureSuffixGap] = top, gap
		if name == "bm25" {
			f[FeatureMatches] = float64(len(l))
		}
	}
	if len(names) == 2 {
		a, b := topDocs(lists[names[0]], min(depth, FeatureTop)), topDocs(lists[names[1]], min(depth, FeatureTop))
		n := 0
		for d := range a {
			if b[d] {
				n++
			}
		}
		f[FeatureOverlap] = float64(n)
	}
	return f
}

// topDocs is the set of documents among the first n candidates of l.
func topDocs(l []Candidate, n int) map[string]bool {
	out := make(map[string]bool, n)
	for i := 0; i < len(l) && i < n; i++ {
		out[docOf(&l[i])] = true
	}
	return out
}

// Choose returns the index of the arm the policy applies to a query with
// features f (a feature missing from f counts as 0).
func (p *Policy) Choose(f map[string]float64) int {
	n := p.Tree
	for n.Feature != "" {
		if f[n.Feature] < n.Threshold {
			n = n.Below
		} else {
			n = n.Above
		}
	}
	return n.Arm
}

// Settings returns the settings the policy ranks a query with features f
// under.
func (p *Policy) Settings(f map[string]float64) Settings { return p.Arms[p.Choose(f)] }

// ReadDepth returns the depth an engine applying p retrieves each list
// to: p.Depth, or deeper when an arm fuses deeper.
func (p *Policy) ReadDepth() int {
	d := p.Depth
	for _, a := range p.Arms {
		d = max(d, a.Fusion.Depth)
	}
	return d
}

// Rules renders the tree as indented if/else rules, one line each, naming
// each arm by describe(arm).
func (p *Policy) Rules(describe func(Settings) string) string {
	var b strings.Builder
	var walk func(n *PolicyNode, indent string)
	walk = func(n *PolicyNode, indent string) {
		if n.Feature == "" {
			fmt.Fprintf(&b, "%suse %s", indent, describe(p.Arms[n.Arm]))
			if n.Queries > 0 {
				fmt.Fprintf(&b, "   (%d training queries)", n.Queries)
			}
			b.WriteByte('\n')
			return
		}
		fmt.Fprintf(&b, "%sif %s < %.4g:\n", indent, n.Feature, n.Threshold)
		walk(n.Below, indent+"    ")
		fmt.Fprintf(&b, "%selse:\n", indent)
		walk(n.Above, indent+"    ")
	}
	walk(p.Tree, "")
	return b.String()
}

// LoadPolicy reads and checks the policy file path (ParsePolicy).
func LoadPolicy(path string) (*Policy, error) {
	data, err := userfile.Read(path, userfile.Default)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return ParsePolicy(data, path)
}

// ErrPolicy marks a policy document that is not valid.
var ErrPolicy = errors.New("invalid policy")

// ParsePolicy decodes a policy document (unknown fields rejected) and
// checks it; file names it in errors ("file:line:col: ..." for syntax
// errors, "file: field: problem" for every other problem at once).
func ParsePolicy(data []byte, file string) (*Policy, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Policy
	if err := dec.Decode(&p); err != nil {
		off := dec.InputOffset()
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		if errors.As(err, &se) {
			off = se.Offset - 1 // Offset counts the offending byte
		} else if errors.As(err, &te) {
			off = te.Offset
		}
		line, col := lineCol(data, off)
		return nil, fmt.Errorf("%s:%d:%d: %w: %v", file, line, col, ErrPolicy, err)
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &p, nil
}

func lineCol(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	return line, int(off) - bytes.LastIndexByte(data[:off], '\n')
}

// Validate checks p and lists every problem at once: the version, depth
// in 1..MaxPolicyDepth, 1..MaxPolicyArms arms with valid fusion settings
// under FormulaOwn, a tree whose splits name known features with finite
// thresholds, at most MaxPolicyLevels deep, and whose leaves name arms.
func (p *Policy) Validate() error {
	var probs []string
	add := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }
	if p.Version != PolicyVersion {
		add("version: must be %d (got %d)", PolicyVersion, p.Version)
	}
	if p.Depth < 1 || p.Depth > MaxPolicyDepth {
		add("depth: must be in [1, %d] (got %d)", MaxPolicyDepth, p.Depth)
	}
	if len(p.Arms) == 0 || len(p.Arms) > MaxPolicyArms {
		add("arms: must hold 1 to %d settings (got %d)", MaxPolicyArms, len(p.Arms))
	}
	for i, a := range p.Arms {
		if a.Formula != FormulaOwn {
			add("arms[%d].Formula: must be empty (the engine's own fusion; got %q)", i, a.Formula)
		}
		if err := a.Fusion.Validate(); err != nil {
			add("arms[%d].Fusion: %v", i, err)
		}
		if a.Fusion.Depth < 1 || a.Fusion.Depth > MaxPolicyDepth {
			add("arms[%d].Fusion.depth: must be in [1, %d] (got %d)", i, MaxPolicyDepth, a.Fusion.Depth)
		}
		if a.Passage != p.Arms[0].Passage {
			add("arms[%d].Passage: every arm must rank the same unit as arms[0]", i)
		}
	}
	probs = checkPolicyNode(probs, p.Tree, "tree", 0, len(p.Arms))
	if len(probs) > 0 {
		return fmt.Errorf("%w: %s", ErrPolicy, strings.Join(probs, "; "))
	}
	return nil
}

// knownFeatures are the features a split may name besides the
// per-retriever ones (<retriever>_top, <retriever>_gap).
var knownFeatures = map[string]bool{FeatureQueryTokens: true, FeatureOverlap: true, FeatureMatches: true}

// checkPolicyNode appends to probs the problems of the tree under n (at
// path, level splits deep) in a policy of arms arms: a missing node, a
// leaf with children or naming no arm, a split too deep, on an unknown
// feature or with a threshold that is not finite.
func checkPolicyNode(probs []string, n *PolicyNode, path string, level, arms int) []string {
	add := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }
	if n == nil {
		add("%s: missing", path)
		return probs
	}
	if n.Feature == "" {
		if n.Below != nil || n.Above != nil {
			add("%s: a leaf (no feature) has no below/above", path)
		}
		if n.Arm < 0 || n.Arm >= arms {
			add("%s.arm: must be in [0, %d] (got %d)", path, arms-1, n.Arm)
		}
		return probs
	}
	if level >= MaxPolicyLevels {
		add("%s: the tree is deeper than %d splits", path, MaxPolicyLevels)
		return probs
	}
	if !knownFeatures[n.Feature] && !strings.HasSuffix(n.Feature, FeatureSuffixTop) && !strings.HasSuffix(n.Feature, FeatureSuffixGap) {
		add("%s.feature: unknown feature %q (want %s, %s, %s or <retriever>%s / <retriever>%s)", path, n.Feature,
			FeatureQueryTokens, FeatureOverlap, FeatureMatches, FeatureSuffixTop, FeatureSuffixGap)
	}
	if math.IsNaN(n.Threshold) || math.IsInf(n.Threshold, 0) {
		add("%s.threshold: must be finite", path)
	}
	probs = checkPolicyNode(probs, n.Below, path+".below", level+1, arms)
	return checkPolicyNode(probs, n.Above, path+".above", level+1, arms)
}

// Encode returns the policy as indented JSON with a trailing newline.
func (p *Policy) Encode() ([]byte, error) {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("policy: encode: %w", err)
	}
	return append(data, '\n'), nil
}
