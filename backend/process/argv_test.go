package process_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/process"
	"github.com/fusiontune/fusiontune/backend/render"
)

// TestCommandArgvNoShell starts a real service whose argv holds hostile
// values and the {config} placeholder inside a path with shell syntax:
// each arrives as one argument, byte for byte, and nothing is evaluated
// (the marker file a shell would create never appears).
func TestCommandArgvNoShell(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "pwned")
	out := filepath.Join(dir, "argv.json")
	cfg := filepath.Join(dir, "weird $(touch "+marker+") `touch "+marker+"`; name.yaml")
	hostileArgs := []string{"$(touch " + marker + ")", "`touch " + marker + "`", "; touch " + marker, "a b", "\"; rm -rf /\"", "--config={config}"}
	b, err := process.New(process.Options{
		Command:      append([]string{os.Args[0], "-test.run=^TestArgvHelperProcess$", "--", "{config}"}, hostileArgs...),
		Env:          []string{"ARGV_OUT=" + out},
		ConfigPath:   cfg,
		Render:       render.YAMLOverlay(map[string]any{}),
		Dial:         func(string) (backend.Searcher, error) { return nil, errors.New("not used") },
		StartTimeout: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	if err := b.Apply(ctx, map[string]any{"custom.v": "$(touch " + marker + ")"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	var data []byte
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if data, err = os.ReadFile(out); err == nil && len(data) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the service never wrote its argv")
		}
	}
	var got []string
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := append([]string{cfg}, hostileArgs[:len(hostileArgs)-1]...)
	want = append(want, "--config="+cfg)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("argv:\n got %q\nwant %q", got, want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a hostile value was evaluated by a shell")
	}
}

// TestArgvHelperProcess is not a test: started by TestCommandArgvNoShell,
// it writes the arguments after "--" as JSON to $ARGV_OUT.
func TestArgvHelperProcess(t *testing.T) {
	out := os.Getenv("ARGV_OUT")
	if out == "" {
		t.Skip("helper process only")
	}
	for i, a := range os.Args {
		if a == "--" {
			data, _ := json.Marshal(os.Args[i+1:])
			os.WriteFile(out, data, 0o644)
			os.Exit(0)
		}
	}
	os.Exit(3)
}
