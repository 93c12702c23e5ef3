package trecevaltest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/metrics/treceval"
)

// Case is one reference run of trec_eval: its arguments (flags, then the
// qrels and run files, relative to DataDir) and the file holding its output.
type Case struct {
	Expected string
	Args     []string
}

// Cases are the commands of trec_eval's test folder, from the data README.
var Cases = []Case{
	{"out.test", strings.Fields("qrels.test results.test")},
	{"out.test.a", strings.Fields("-m all_trec qrels.test results.test")},
	{"out.test.aq", strings.Fields("-m all_trec -q qrels.test results.test")},
	{"out.test.aqc", strings.Fields("-m all_trec -q -c qrels.test results.trunc")},
	{"out.test.aql", strings.Fields("-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test")},
	{"out.test.meas_params", strings.Fields("-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 " +
		"-m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 " +
		"-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test")},
}

// Required are the measures a parity run must have matched.
var Required = []string{"num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank",
	"P", "recall", "ndcg", "ndcg_cut", "success"}

// DataDir returns ../shared/data/trec_eval relative to the repository root
// (the directory holding go.mod above this file). It may not exist.
func DataDir() string {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Dir(file)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "data", "trec_eval")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Join("..", "shared", "data", "trec_eval")
		}
		dir = parent
	}
}

// Report is the outcome of Compare.
type Report struct {
	Matched  int             // expected lines of implemented measures found
	Skipped  int             // expected lines of measures not implemented
	Covered  map[string]bool // implemented measures with a matched line
	Problems []string        // missing, different or unexpected lines
}

// Compare checks got (our output) against expected (trec_eval's): every
// expected line of an implemented measure must appear byte for byte, and
// every line of got must be expected.
func Compare(expected, got string) Report {
	implemented := map[string]bool{}
	for _, n := range treceval.Names() {
		implemented[n] = true
	}
	r := Report{Covered: map[string]bool{}}
	gotSet := lines(got)
	wantSet := lines(expected)
	for _, line := range strings.Split(strings.TrimSuffix(expected, "\n"), "\n") {
		name := strings.TrimRight(strings.SplitN(line, "\t", 2)[0], " ")
		base := measureBase(name)
		switch {
		case base == "":
			r.Problems = append(r.Problems, "expected line of unknown measure: "+quote(line))
		case !implemented[base]:
			r.Skipped++
		case !gotSet[line]:
			r.Problems = append(r.Problems, "missing or different: "+quote(line))
		default:
			r.Matched++
			r.Covered[base] = true
		}
	}
	for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if !wantSet[line] {
			r.Problems = append(r.Problems, "unexpected line: "+quote(line))
		}
	}
	return r
}

func lines(s string) map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		m[l] = true
	}
	return m
}

func quote(s string) string { return "\"" + strings.ReplaceAll(s, "\t", "\\t") + "\"" }

// measureBase returns the trec_eval measure an output name belongs to
// ("P_10" -> "P", "ndcg_cut_5" -> "ndcg_cut", "ndcg_rel" -> "ndcg_rel"):
// the longest trec_eval measure name equal to the name or a prefix of it
// followed by "_".
func measureBase(name string) string {
	best := ""
	for _, m := range treceval.AllTrec {
		if (name == m || strings.HasPrefix(name, m+"_")) && len(m) > len(best) {
			best = m
		}
	}
	return best
}

// Run checks eval against every Case: eval runs one case (data is DataDir)
// and returns what it printed. Run skips t when the data folder is absent,
// reports every mismatched line, and fails when a Required measure was never
// matched.
func Run(t *testing.T, eval func(t *testing.T, data string, c Case) string) {
	t.Helper()
	data := DataDir()
	if _, err := os.Stat(filepath.Join(data, "out.test")); err != nil {
		t.Skipf("trec_eval test files absent (%s): skipping the parity test", data)
	}
	covered := map[string]bool{}
	for _, c := range Cases {
		t.Run(c.Expected, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(data, c.Expected))
			if err != nil {
				t.Fatal(err)
			}
			r := Compare(string(want), eval(t, data, c))
			for _, p := range r.Problems {
				t.Error(p)
			}
			for m := range r.Covered {
				covered[m] = true
			}
			t.Logf("%s: %d lines matched, %d lines of unimplemented measures skipped", c.Expected, r.Matched, r.Skipped)
		})
	}
	for _, m := range Required {
		if !covered[m] {
			t.Errorf("required measure %q was not matched against any expected output", m)
		}
	}
}
