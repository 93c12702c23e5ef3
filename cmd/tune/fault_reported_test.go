package main_test

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// reportedLine is a sweep's progress line for a finished trial.
var reportedLine = regexp.MustCompile(`^trial (\d+)/\d+ (.+): (primary|failed)`)

// TestFaultKilledAfterReport SIGKILLs tune the moment its progress says a
// third trial finished (records are written in the background while the
// next trial starts): every trial a progress line reported is in the run,
// whole, with its per-query results.
func TestFaultKilledAfterReport(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	exp := longExperiment(e)
	cmd, _, _ := e.command("--experiments", exp, "--mode", "live")
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	reported := map[int]string{}
	var serve []int
	var log []string
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			log = append(log, sc.Text())
			m := reportedLine.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			var i int
			fmt.Sscan(m[1], &i)
			reported[i-1] = m[2]
			if len(reported) == 3 {
				serve = children(cmd.Process.Pid)
				cmd.Process.Signal(syscall.SIGKILL)
				return
			}
		}
	}()
	select {
	case <-killed:
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		pw.Close()
		<-killed
		t.Fatalf("no third finished trial in 3 minutes:\n%v", log)
	}
	cmd.Wait()
	pw.Close()
	for _, pid := range serve {
		waitFor(t, 10*time.Second, fmt.Sprintf("the orphaned tune serve %d to die", pid), func() bool { return !alive(pid) })
	}
	if len(reported) != 3 {
		t.Fatalf("reported %v before the kill:\n%v", reported, log)
	}
	dirs := e.runDirs()
	if len(dirs) != 1 {
		t.Fatalf("runs: %v", dirs)
	}
	recs := readTrials(t, trialFiles(dirs[0]))
	for i, name := range reported {
		base := fmt.Sprintf("%03d", i)
		r, ok := recs[base+".json"]
		if !ok || r.Name != name {
			t.Errorf("trial %d %s was reported finished but its record is %+v (present: %v)", i+1, name, r, ok)
			continue
		}
		if m, _ := filepath.Glob(filepath.Join(dirs[0], "trials", base+".queries.jsonl")); len(m) != 1 {
			t.Errorf("trial %d %s was reported finished without its per-query results", i+1, name)
		}
	}
}
