package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFaultPromotionKilled is a killed promotion through the real binary:
// tune apply is SIGKILLed while it verifies the promoted config (the
// process-kind service starts slowly). The journal holds the promotion's
// intent, so a later command says exactly what state the production
// config is in, and tune rollback restores the previous config byte for
// byte, brings the service up on it and journals the outcome.
func TestFaultPromotionKilled(t *testing.T) {
	e := newSweepEnv(t, "")
	addr := freeAddr(t)
	slow := filepath.Join(e.dir, "slow")
	e.env = append(e.env, "FAULT_SERVICE=1", "FAULT_SLOW="+slow)
	e.write("svc.yaml.tmpl", "fault: ok\nn: {{ param \"custom.n\" 0 }}\n")
	e.write("golden.json", `{"queries": [{"id": "q1", "query": "one", "category": "c", "expected_passages": [{"doc_id": "kb-0028", "relevance": 3}]}]}`)
	prod := e.write("prod.yaml", "fault: ok\nn: 0\n# production\n")
	orig, _ := os.ReadFile(prod)
	e.write("tune.yaml", faultServiceSettings(addr, "", "  config: prod.yaml\n", "2m"))
	exp := e.write("exp.json", `{"baseline": {"params": {"custom.n": 0}}, "experiments": [{"name": "n=1", "params": {"custom.n": 1}}]}`)
	if _, stderr, code := e.run("--experiments", exp); code != 0 {
		t.Fatalf("sweep: exit %d\n%s", code, stderr)
	}
	run := filepath.Base(e.runDirs()[0])
	journal := filepath.Join(e.dir, "runs", "promotions.jsonl")

	// tune apply, killed while the service it restarts on the new config
	// is still starting.
	if err := os.WriteFile(slow, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, _, stderr := e.command("apply", run, "n=1", "--force")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitFor(t, time.Minute, "tune apply to restart the service on the promoted config", func() bool {
		return len(processesWith(prod)) > 0
	})
	// While it runs, the promotion is in progress, not unfinished.
	if _, errOut, _ := e.run("runs"); strings.Contains(errOut, "did not finish") {
		t.Errorf("a promotion in progress reported as unfinished:\n%s", errOut)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	for _, pid := range processesWith(prod) {
		syscall.Kill(pid, syscall.SIGKILL) // the slow service, orphaned
	}
	promoted, _ := os.ReadFile(prod)
	if bytes.Equal(promoted, orig) || !strings.Contains(string(promoted), "n: 1") {
		t.Fatalf("production config after the kill:\n%s\n(apply's stderr:\n%s)", promoted, stderr)
	}
	last := lastJournalLine(t, journal)
	if last["status"] != "pending" || last["trial"] != "n=1" {
		t.Fatalf("journal's last line after the kill: %v", last)
	}

	// Any later command says where things stand.
	_, errOut, code := e.run("runs")
	if code != 0 {
		t.Fatalf("tune runs: exit %d\n%s", code, errOut)
	}
	mustContain(t, "tune runs stderr", errOut, `warning: the promote of trial "n=1" (run `+run+`) to `+prod,
		"did not finish (the process was killed): it holds the new, unverified config; the previous config is saved in ",
		"'tune rollback' restores the previous config")

	// tune rollback completes the rollback.
	if err := os.Remove(slow); err != nil {
		t.Fatal(err)
	}
	stdout, errOut, code := e.run("rollback")
	if code != 0 {
		t.Fatalf("tune rollback: exit %d\n%s", code, errOut)
	}
	mustContain(t, "tune rollback stdout", stdout, `rolled back the interrupted promote of n=1 (run `+run+`): `+prod+` holds the previous config again`)
	if now, _ := os.ReadFile(prod); !bytes.Equal(now, orig) {
		t.Errorf("production config after tune rollback:\n%s\nwant\n%s", now, orig)
	}
	last = lastJournalLine(t, journal)
	if last["status"] != "rolled_back" || !strings.Contains(fmt.Sprint(last["error"]), "interrupted") {
		t.Errorf("journal's last line after the rollback: %v", last)
	}
	if left := processesWith(prod); len(left) > 0 {
		t.Errorf("services left running: %v", left)
	}
	if _, errOut, _ := e.run("runs"); strings.Contains(errOut, "did not finish") {
		t.Errorf("still reported unfinished after the rollback:\n%s", errOut)
	}
}

func lastJournalLine(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil {
		t.Fatal(err)
	}
	return m
}
