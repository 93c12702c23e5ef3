package studystore_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/c-bata/goptuna"
	"github.com/fusiontune/fusiontune/tuner/studystore"
)

// TestMain lets the test binary act as a worker process for the tests
// below (STUDYSTORE_HELPER names the role).
func TestMain(m *testing.M) {
	if role := os.Getenv("STUDYSTORE_HELPER"); role != "" {
		if err := helper(role); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helper is a worker process: "sampled" runs the sampled loop and prints
// the trial ids it ran; "hang" claims one trial, prints it, and beats
// forever (until killed).
func helper(role string) error {
	ctx := context.Background()
	url, study, worker := os.Getenv("HELPER_URL"), os.Getenv("HELPER_STUDY"), os.Getenv("HELPER_WORKER")
	budget, err := strconv.Atoi(os.Getenv("HELPER_BUDGET"))
	if err != nil {
		return err
	}
	s, err := studystore.Open(ctx, url)
	if err != nil {
		return err
	}
	defer s.Close()
	switch role {
	case "open": // opening (and creating the tables) is all
		return nil
	case "sampled":
		ran, err := runSampled(ctx, s, study, budget, worker, int64(os.Getpid()))
		for _, id := range ran {
			fmt.Println(id)
		}
		return err
	case "hang":
		st, err := s.Study(study, goptuna.StudyDirectionMaximize)
		if err != nil {
			return err
		}
		c, outcome, err := s.Next(ctx, st.ID, budget, worker)
		if err != nil {
			return err
		}
		if outcome != studystore.Claimed {
			return fmt.Errorf("outcome %s", outcome)
		}
		s.KeepAlive(ctx, c.TrialID, worker, 50*time.Millisecond)
		fmt.Printf("claimed %d\n", c.TrialID)
		select {}
	}
	return fmt.Errorf("unknown role %q", role)
}

func helperCmd(t *testing.T, role, url, study, worker string, budget int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "STUDYSTORE_HELPER="+role, "HELPER_URL="+url, "HELPER_STUDY="+study,
		"HELPER_WORKER="+worker, "HELPER_BUDGET="+strconv.Itoa(budget))
	cmd.Stderr = os.Stderr
	return cmd
}

// TestProcessesShareSampledStudy: three worker processes share a 15-trial
// sampled study; each trial runs once and the study ends with 15.
func TestProcessesShareSampledStudy(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			url := b.fresh(t)
			const procs, budget = 3, 15
			var mu sync.Mutex
			var all []int
			fanOut(t, procs, func(p int) error {
				out, err := helperCmd(t, "sampled", url, "procs", fmt.Sprintf("p%d", p), budget).Output()
				if err != nil {
					return err
				}
				for _, f := range strings.Fields(string(out)) {
					id, err := strconv.Atoi(f)
					if err != nil {
						return fmt.Errorf("printed %q", f)
					}
					mu.Lock()
					all = append(all, id)
					mu.Unlock()
				}
				return nil
			})
			checkComplete(t, open(t, url), "procs", budget, all)
		})
	}
}

// TestKilledWorkersTrialIsFailedAndRequeued: a worker process claims a
// queued trial and is SIGKILLed; while it was alive its heartbeat kept the
// trial, after the timeout another worker fails it, re-queues its
// parameters, and the study completes with every queued value run once.
func TestKilledWorkersTrialIsFailedAndRequeued(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			url := b.fresh(t)
			ctx := context.Background()
			s := open(t, url)
			st, err := s.Study("reap", goptuna.StudyDirectionMaximize)
			if err != nil {
				t.Fatal(err)
			}
			const n = 3
			for i := range n {
				if err := st.EnqueueTrial(map[string]float64{"x": float64(i)}); err != nil {
					t.Fatal(err)
				}
			}
			cmd := helperCmd(t, "hang", url, "reap", "doomed", n)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil {
				t.Fatalf("helper output: %v", err)
			}
			var dead int
			if _, err := fmt.Sscanf(line, "claimed %d", &dead); err != nil {
				t.Fatalf("helper said %q", line)
			}
			const timeout = time.Second
			// Alive for longer than the timeout: its heartbeats keep the trial.
			time.Sleep(timeout + 500*time.Millisecond)
			if r, err := s.ReapStale(ctx, st.ID, timeout, time.Now()); err != nil || len(r) != 0 {
				t.Fatalf("reaping while the worker beats: %v, %v; want nothing", r, err)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			time.Sleep(timeout + 200*time.Millisecond)
			reaped, err := s.ReapStale(ctx, st.ID, timeout, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if len(reaped) != 1 || reaped[0].TrialID != dead || reaped[0].Worker != "doomed" || reaped[0].Requeued == 0 {
				t.Fatalf("reaped %+v, want trial %d of worker doomed, requeued", reaped, dead)
			}
			if again, err := s.ReapStale(ctx, st.ID, timeout, time.Now()); err != nil || len(again) != 0 {
				t.Fatalf("second reap: %v, %v; want nothing", again, err)
			}
			ft, err := s.Storage.GetTrial(dead)
			if err != nil {
				t.Fatal(err)
			}
			if ft.State != goptuna.TrialStateFail || !strings.Contains(ft.SystemAttrs[studystore.FailureAttr], "doomed") {
				t.Fatalf("dead trial: state %s, attrs %v; want FAIL with the reason", ft.State, ft.SystemAttrs)
			}
			if err := s.Finish(ctx, dead, "COMPLETE", 1, "test", nil); !errors.Is(err, studystore.ErrTrialLost) {
				t.Fatalf("late finish of the dead trial: %v, want ErrTrialLost", err)
			}
			var xs []float64
			for {
				c, outcome, err := s.Next(ctx, st.ID, n, "survivor")
				if err != nil {
					t.Fatal(err)
				}
				if outcome == studystore.Done {
					break
				}
				if outcome != studystore.Claimed {
					t.Fatalf("outcome %s with no other worker alive", outcome)
				}
				x, err := (&goptuna.Trial{Study: st, ID: c.TrialID}).SuggestFloat("x", 0, n)
				if err != nil {
					t.Fatal(err)
				}
				xs = append(xs, x)
				if err := s.Finish(ctx, c.TrialID, "COMPLETE", x, "test", nil); err != nil {
					t.Fatal(err)
				}
			}
			sort.Float64s(xs)
			if fmt.Sprint(xs) != "[0 1 2]" {
				t.Fatalf("survivor ran %v, want [0 1 2]", xs)
			}
		})
	}
}

// TestProcessesFirstOpenSQLite: worker processes started together on a new
// SQLite file all open it. Creating the tables reads then writes outside
// an immediate transaction, and SQLite answers such a conflict between
// processes with SQLITE_BUSY at once, without its busy timeout; Open
// serializes a SQLite file's first open with a lock file.
func TestProcessesFirstOpenSQLite(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 8; round++ {
		url := fmt.Sprintf("sqlite:///%s/open%d.db", t.TempDir(), round)
		var cmds []*exec.Cmd
		var outs []*strings.Builder
		for i := 0; i < 6; i++ {
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), "STUDYSTORE_HELPER=open", "HELPER_URL="+url, "HELPER_BUDGET=0")
			out := &strings.Builder{}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, outs = append(cmds, cmd), append(outs, out)
		}
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Errorf("round %d, process %d: %v\n%s", round, i, err, outs[i])
			}
		}
	}
}
