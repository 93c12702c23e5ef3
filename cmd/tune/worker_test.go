package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/c-bata/goptuna"
	"github.com/fusiontune/fusiontune/internal/pgtest"
	"github.com/fusiontune/fusiontune/tuner/studystore"
)

// sharedExperiment is a 30-trial study over query-time parameters: the
// baseline, then 29 trials TPE proposes.
const sharedExperiment = `{
  "seed": 11,
  "baseline": {"name": "baseline", "params": {"fusion.method": "rrf", "fusion.k": 60, "fusion.weights.bm25": 0.5}},
  "sampler": "tpe",
  "trials": 29,
  "space": {
    "fusion.k": {"type": "int", "low": 5, "high": 120},
    "fusion.weights.bm25": {"type": "float", "low": 0, "high": 1},
    "fusion.method": {"type": "categorical", "choices": ["rrf", "linear"]}
  }
}`

// worker is one `tune worker` process in its own directory (own runs
// directory, own caches).
type worker struct {
	name   string
	env    *sweepEnv
	cmd    *exec.Cmd
	stdout *bytes.Buffer
	stderr *bytes.Buffer
}

func startWorker(t *testing.T, name, url string, extra ...string) *worker {
	t.Helper()
	return startWorkerWith(t, sweepSettings, name, url, extra...)
}

// startWorkerWith starts a worker on its own settings file.
func startWorkerWith(t *testing.T, settings, name, url string, extra ...string) *worker {
	t.Helper()
	e := newSweepEnv(t, settings)
	exp := e.write("study.json", sharedExperiment)
	args := append([]string{"worker", "--experiments", exp, "--storage", url, "--study", "shared", "--worker", name}, extra...)
	cmd, stdout, stderr := e.command(args...)
	// Its own process group: killing the group is a machine dying, the
	// worker and its tune serve child at once.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &worker{name: name, env: e, cmd: cmd, stdout: stdout, stderr: stderr}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	return w
}

func (w *worker) wait(t *testing.T) {
	t.Helper()
	if err := w.cmd.Wait(); err != nil {
		t.Fatalf("worker %s: %v\nstderr:\n%s", w.name, err, w.stderr)
	}
}

// trials lists the names of the trials the worker ran, as recorded in its
// own run (which also holds the other workers' trials, brought in at the
// end).
func (w *worker) trials(t *testing.T) []string {
	t.Helper()
	dirs := w.env.runDirs()
	if len(dirs) != 1 {
		t.Fatalf("worker %s: runs %v, want one", w.name, dirs)
	}
	files, _ := filepath.Glob(filepath.Join(dirs[0], "trials", "[0-9][0-9][0-9].json"))
	var names []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var rec struct{ Name, Worker string }
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(rec.Worker, w.name+"/") {
			names = append(names, rec.Name)
		}
	}
	return names
}

// studyTrials reads the shared study's trials from the database (none
// before a worker created it).
func studyTrials(t *testing.T, url string) []goptuna.FrozenTrial {
	t.Helper()
	s, err := studystore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id, err := s.StudyID(context.Background(), "shared")
	if errors.Is(err, studystore.ErrNoStudy) {
		return nil // not created yet
	}
	if err != nil {
		t.Fatal(err)
	}
	trials, err := s.Storage.GetAllTrials(id)
	if err != nil {
		t.Fatal(err)
	}
	return trials
}

// checkStudy asserts the study completed its 30 trials, none run twice:
// the workers' own runs are disjoint and together hold every trial of the
// combined leaderboard, which is the same bytes when printed twice.
// A killed worker may die between finishing a trial in the study and
// writing it to its run: with killed, one such trial is allowed.
func checkStudy(t *testing.T, url string, killed bool, workers ...*worker) {
	t.Helper()
	complete := 0
	for _, tr := range studyTrials(t, url) {
		switch tr.State {
		case goptuna.TrialStateComplete:
			complete++
		case goptuna.TrialStateRunning, goptuna.TrialStateWaiting:
			t.Errorf("trial %d left %s", tr.Number, tr.State)
		}
	}
	if complete != 30 {
		t.Errorf("%d COMPLETE trials, want 30", complete)
	}
	ran := map[string]string{}
	for _, w := range workers {
		for _, name := range w.trials(t) {
			if other, ok := ran[name]; ok {
				t.Errorf("trial %s ran in worker %s and in worker %s", name, other, w.name)
			}
			ran[name] = w.name
		}
	}
	e := workers[0].env
	out1, stderr, code := e.run("leaderboard", "--storage", url, "--study", "shared", "--format", "json")
	if code != 0 {
		t.Fatalf("tune leaderboard --storage: exit %d\n%s", code, stderr)
	}
	out2, _, _ := e.run("leaderboard", "--storage", url, "--study", "shared", "--format", "json")
	if out1 != out2 {
		t.Error("combined leaderboard JSON differs between two prints")
	}
	var lb struct {
		Trials []struct{ Name, Status string }
	}
	if err := json.Unmarshal([]byte(out1), &lb); err != nil {
		t.Fatal(err)
	}
	var names, unrecorded []string
	for _, en := range lb.Trials {
		names = append(names, en.Name)
		if _, ok := ran[en.Name]; !ok {
			unrecorded = append(unrecorded, en.Name)
		}
	}
	if len(unrecorded) > 0 && !(killed && len(unrecorded) == 1) {
		t.Errorf("leaderboard trials %v are in no worker's run", unrecorded)
	}
	sort.Strings(names)
	if len(names) != 30 {
		t.Errorf("combined leaderboard has %d trials, want 30: %v", len(names), names)
	}
	for i := 1; i < len(names); i++ {
		if names[i] == names[i-1] {
			t.Errorf("trial %s twice in the combined leaderboard", names[i])
		}
	}
}

// TestTwoWorkersShareStudy: two workers, each with its own tune serve,
// complete a 30-trial TPE study in a throwaway PostgreSQL 15 with no trial
// run twice; both take part. Each ends as a sweep does: its run holds the
// whole study (the other worker's trials brought in from the database with
// their per-query results), and its leaderboard has the significance
// columns against the baseline, its report and its gate check.
func TestTwoWorkersShareStudy(t *testing.T) {
	url := pgtest.Start(t).NewDatabase(t)
	settings := sweepSettings + "gates: [\"NDCG@10 >= 0.1\"]\n"
	a := startWorkerWith(t, settings, "wa", url)
	b := startWorkerWith(t, settings, "wb", url)
	a.wait(t)
	b.wait(t)
	for _, w := range []*worker{a, b} {
		checkSweepFinish(t, w)
		if n := len(w.trials(t)); n == 0 {
			t.Errorf("worker %s ran no trial:\n%s", w.name, w.stderr)
		}
		if _, err := os.Stat(filepath.Join(w.env.runDirs()[0], "backend-0", "serve.log")); err != nil {
			t.Errorf("worker %s had no backend of its own: %v", w.name, err)
		}
		if !strings.Contains(w.stdout.String(), "tpe-") {
			t.Errorf("worker %s printed no leaderboard:\n%s", w.name, w.stdout)
		}
	}
	checkStudy(t, url, false, a, b)
}

// checkSweepFinish asserts a worker's run ended like a sweep's: every
// trial of the study in its leaderboard, each compared with the baseline
// (paired test, corrected p), a report, and the gates checked.
func checkSweepFinish(t *testing.T, w *worker) {
	t.Helper()
	dir := w.env.runDirs()[0]
	data, err := os.ReadFile(filepath.Join(dir, "leaderboard.json"))
	if err != nil {
		t.Fatalf("worker %s: %v", w.name, err)
	}
	var lb struct {
		Baseline string
		Trials   []struct {
			Name, Status string
			Baseline     bool
			VsBaseline   *struct {
				Against, Correction string
				N                   int
			} `json:"vs_baseline"`
		}
	}
	if err := json.Unmarshal(data, &lb); err != nil {
		t.Fatal(err)
	}
	if len(lb.Trials) != 30 || lb.Baseline != "baseline" {
		t.Errorf("worker %s: leaderboard of %d trials with baseline %q, want the study's 30 with baseline", w.name, len(lb.Trials), lb.Baseline)
	}
	compared := 0
	for _, tr := range lb.Trials {
		if tr.Status != "ok" || tr.Name == "baseline" {
			continue
		}
		if v := tr.VsBaseline; v == nil || v.Against != "baseline" || v.Correction == "" || v.N == 0 {
			t.Errorf("worker %s: trial %s has no comparison with the baseline: %+v", w.name, tr.Name, tr.VsBaseline)
			continue
		}
		compared++
	}
	if compared == 0 {
		t.Errorf("worker %s: no trial compared with the baseline", w.name)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Errorf("worker %s: no report: %v", w.name, err)
	}
	for _, want := range []string{"gates on trial", "NDCG@10 >= 0.1", "time: "} {
		if !strings.Contains(w.stderr.String(), want) {
			t.Errorf("worker %s: stderr lacks %q:\n%s", w.name, want, w.stderr)
		}
	}
}

// TestKilledWorkerStudyStillCompletes: one of two workers is SIGKILLed
// (with its tune serve) while it runs a trial; after the heartbeat timeout
// the other fails that trial and completes the study alone.
func TestKilledWorkerStudyStillCompletes(t *testing.T) {
	url := pgtest.Start(t).NewDatabase(t)
	beat := []string{"--heartbeat", "200ms", "--heartbeat-timeout", "2s"}
	// The doomed worker runs alone until it has finished two trials and is
	// running a third, so the kill always lands mid-study and mid-trial
	// (with a second worker already running, that worker could finish the
	// study first: the race this order removes). The survivor then joins,
	// must fail the dead worker's trial by the heartbeat rule, and
	// completes the study. Two workers running side by side are
	// TestTwoWorkersShareStudy's subject.
	a := startWorker(t, "doomed", url, beat...)
	deadline := time.Now().Add(3 * time.Minute)
	victim := -1
	for victim < 0 {
		if time.Now().After(deadline) {
			t.Fatalf("worker doomed never ran a third trial:\n%s", a.stderr)
		}
		time.Sleep(100 * time.Millisecond)
		done, running := 0, -1
		for _, tr := range studyTrials(t, url) {
			if tr.SystemAttrs[studystore.WorkerAttr] != "doomed/0" {
				continue
			}
			switch tr.State {
			case goptuna.TrialStateComplete:
				done++
			case goptuna.TrialStateRunning:
				running = tr.ID
			}
		}
		if done >= 2 && running >= 0 {
			if err := syscall.Kill(-a.cmd.Process.Pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			victim = running
		}
	}
	_ = a.cmd.Wait()
	b := startWorker(t, "survivor", url, beat...)
	b.wait(t)
	var failed *goptuna.FrozenTrial
	for _, tr := range studyTrials(t, url) {
		if tr.ID == victim {
			failed = &tr
		}
	}
	if failed == nil || failed.State != goptuna.TrialStateFail || !strings.Contains(failed.SystemAttrs[studystore.FailureAttr], `worker "doomed/0"`) {
		t.Fatalf("the killed worker's trial: %+v, want FAIL by the heartbeat rule", failed)
	}
	checkStudy(t, url, true, a, b)
}

// TestWorkerBadInput: usage and input errors exit 2 with a clear message
// before any run directory or backend exists.
func TestWorkerBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"worker without storage", []string{"worker", "--experiments", "study.json", "--study", "s"}, "--storage URL and --study NAME are required"},
		{"worker without study", []string{"worker", "--experiments", "study.json", "--storage", "sqlite:///s.db"}, "--storage URL and --study NAME are required"},
		{"bad scheme", []string{"worker", "--experiments", "study.json", "--storage", "redis://h/0", "--study", "s"}, `unsupported scheme "redis"`},
		{"postgres without host", []string{"--experiments", "study.json", "--storage", "postgres:///db"}, "missing host"},
		{"sqlite missing directory", []string{"--experiments", "study.json", "--storage", "sqlite:///no/such/dir/s.db"}, `directory "no/such/dir" of the database file does not exist`},
		{"parallel zero", []string{"--experiments", "study.json", "--parallel", "0"}, "sweep: --parallel: want an integer >= 1 (got 0)"},
		{"resume", []string{"--experiments", "study.json", "--storage", "sqlite:///s.db", "--resume", "x"}, "--resume does not apply"},
		{"apply best", []string{"--experiments", "study.json", "--parallel", "2", "--apply-best"}, "--apply-best does not apply"},
		{"heartbeat", []string{"--experiments", "study.json", "--parallel", "2", "--heartbeat-timeout", "1s", "--heartbeat", "2s"}, "must be longer than --heartbeat"},
		{"study without storage", []string{"--experiments", "study.json", "--study", "s"}, "--study needs --storage"},
		{"leaderboard study without storage", []string{"leaderboard", "--study", "s"}, "--study needs --storage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newSweepEnv(t, sweepSettings)
			e.write("study.json", sharedExperiment)
			_, stderr, code := e.run(tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit 2 and %q", code, stderr, tt.want)
			}
			if dirs := e.runDirs(); len(dirs) != 0 {
				t.Errorf("run directories made: %v", dirs)
			}
		})
	}
}

// TestParallelReplicas: --parallel 2 without --storage runs two tune serve
// replicas in one process on a study kept in the run directory; both run
// trials and the study ends with its budget.
func TestParallelReplicas(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	exp := e.write("study.json", strings.Replace(sharedExperiment, `"trials": 29`, `"trials": 7`, 1))
	stdout, stderr, code := e.run("--experiments", exp, "--parallel", "2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	dirs := e.runDirs()
	if len(dirs) != 1 {
		t.Fatalf("runs: %v", dirs)
	}
	for r := range 2 {
		log := filepath.Join(dirs[0], fmt.Sprintf("backend-%d", r), "serve.log")
		if st, err := os.Stat(log); err != nil || st.Size() == 0 {
			t.Errorf("replica %d: no tune serve log (%v)", r, err)
		}
	}
	s, err := studystore.Open(context.Background(), "sqlite:///"+filepath.Join(dirs[0], "study.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id, err := s.StudyID(context.Background(), "fusiontune")
	if err != nil {
		t.Fatal(err)
	}
	trials, err := s.Storage.GetAllTrials(id)
	if err != nil {
		t.Fatal(err)
	}
	byReplica := map[string]int{}
	for _, tr := range trials {
		if tr.State != goptuna.TrialStateComplete {
			t.Errorf("trial %d is %s", tr.Number, tr.State)
		}
		byReplica[tr.SystemAttrs[studystore.WorkerAttr]]++
	}
	if len(trials) != 8 || len(byReplica) != 2 {
		t.Errorf("%d trials by replicas %v, want 8 shared by two replicas", len(trials), byReplica)
	}
	var lb struct{ Trials []struct{ Name string } }
	if err := json.Unmarshal([]byte(stdout), &lb); err != nil || len(lb.Trials) != 8 {
		t.Errorf("leaderboard on stdout: %d trials, %v", len(lb.Trials), err)
	}
}

// TestParallelReplicasPlainFile: a file without a space (baseline, named
// variants, grid) runs on two replicas through the study's queue, each
// trial once.
func TestParallelReplicasPlainFile(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	exp := e.write("plain.json", smallExperiment)
	stdout, stderr, code := e.run("--experiments", exp, "--parallel", "2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var lb struct {
		Trials []struct{ Name, Status string }
	}
	if err := json.Unmarshal([]byte(stdout), &lb); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, en := range lb.Trials {
		if seen[en.Name] {
			t.Errorf("trial %s twice", en.Name)
		}
		seen[en.Name] = true
	}
	for _, want := range []string{"baseline", "k=10", "linear", "bm25-only"} {
		if !seen[want] {
			t.Errorf("leaderboard lacks %s: %v", want, lb.Trials)
		}
	}
	if !strings.Contains(stderr, "then no sampled trials (no space)") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// TestInterruptedWorkerGivesBackItsTrial: Ctrl-C (SIGINT) on a worker fails
// its running trial at once (no heartbeat timeout to wait for), leaves no
// trial RUNNING, and exits 1 saying how to rejoin.
func TestInterruptedWorkerGivesBackItsTrial(t *testing.T) {
	url := "sqlite:///" + filepath.Join(t.TempDir(), "study.db")
	w := startWorker(t, "quitter", url)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if time.Now().After(deadline) {
			t.Fatalf("worker never ran a second trial:\n%s", w.stderr)
		}
		time.Sleep(50 * time.Millisecond)
		done, running := 0, false
		for _, tr := range studyTrials(t, url) {
			done += b2i(tr.State == goptuna.TrialStateComplete)
			running = running || tr.State == goptuna.TrialStateRunning
		}
		if done >= 1 && running {
			break
		}
	}
	if err := w.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := w.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(w.stderr.String(), "run the worker again") {
		t.Fatalf("exit %v, want 1 with a rejoin hint:\n%s", err, w.stderr)
	}
	interrupted := 0
	for _, tr := range studyTrials(t, url) {
		if tr.State == goptuna.TrialStateRunning {
			t.Errorf("trial %d still RUNNING after the worker stopped", tr.Number)
		}
		if strings.Contains(tr.SystemAttrs[studystore.FailureAttr], "interrupted") {
			interrupted++
		}
	}
	// One, unless the signal fell in the instant between two trials (then
	// none was running and the RUNNING check above is what counts).
	if interrupted > 1 {
		t.Errorf("%d trials failed as interrupted, want at most 1", interrupted)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
