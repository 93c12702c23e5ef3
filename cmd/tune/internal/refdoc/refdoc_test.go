package refdoc_test

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/refdoc"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/settings"
)

var update = flag.Bool("update", false, "rewrite the generated reference pages")

const root = "../../../.."

// TestPagesCurrent: every committed reference page is the one the code
// makes (-update, or make docs, writes them).
func TestPagesCurrent(t *testing.T) {
	pages, err := refdoc.Pages(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		path := filepath.Join(root, filepath.FromSlash(p.Path))
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(p.Text), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (make docs writes it)", p.Path, err)
			continue
		}
		if string(got) != p.Text {
			t.Errorf("%s is not what the code makes: run make docs (or go test ./cmd/tune/internal/refdoc -update)\n%s", p.Path, firstDiff(string(got), p.Text))
		}
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n committed: " + gl + "\n code:      " + wl
		}
	}
	return ""
}

// TestSettingsTableComplete: the settings page documents every key of the
// settings struct, and no other.
func TestSettingsTableComplete(t *testing.T) {
	keys := refdoc.SettingsKeys()
	documented := refdoc.DocumentedSettings()
	for _, k := range keys {
		if !slices.Contains(documented, k) {
			t.Errorf("settings key %q is not documented (add it to refdoc's settingsTable)", k)
		}
	}
	for _, k := range documented {
		if !slices.Contains(keys, k) {
			t.Errorf("refdoc documents %q, which the settings do not have", k)
		}
	}
	if len(keys) < 100 {
		t.Errorf("only %d settings keys found", len(keys))
	}
}

// TestSettingsRanges checks every documented range against Load: both
// ends of a closed range load, one step beyond either end is refused
// with an error naming the key (an open end: the end itself is refused,
// one step inside loads).
func TestSettingsRanges(t *testing.T) {
	ranges := refdoc.SettingRanges()
	if len(ranges) < 25 {
		t.Fatalf("only %d ranges", len(ranges))
	}
	for _, r := range ranges {
		t.Run(r.Key, func(t *testing.T) {
			ok, bad := stepValues(t, r)
			for _, v := range ok {
				if err := load(t, r, v); err != nil {
					t.Errorf("%s: %s: documented in %s, refused: %v", r.Key, v, r.Text, err)
				}
			}
			for _, v := range bad {
				err := load(t, r, v)
				if err == nil {
					t.Errorf("%s: %s: outside %s, loaded", r.Key, v, r.Text)
				} else if !strings.Contains(err.Error(), r.Key) {
					t.Errorf("%s: %s: the error does not name the key: %v", r.Key, v, err)
				}
			}
		})
	}
}

// stepValues are the values that must load and those that must not.
func stepValues(t *testing.T, r refdoc.Range) (ok, bad []string) {
	t.Helper()
	if lo, err := time.ParseDuration(r.Lo); err == nil && strings.IndexAny(r.Hi, "hms") > 0 {
		hi, err := time.ParseDuration(r.Hi)
		if err != nil {
			t.Fatal(err)
		}
		step := time.Millisecond
		ends := func(v time.Duration, open bool, inward time.Duration) {
			if open {
				bad, ok = append(bad, v.String()), append(ok, (v+inward).String())
			} else {
				ok, bad = append(ok, v.String()), append(bad, (v-inward).String())
			}
		}
		ends(lo, r.LoOpen, step)
		ends(hi, r.HiOpen, -step)
		return ok, bad
	}
	loI, errLo := strconv.ParseInt(r.Lo, 10, 64)
	hiI, errHi := strconv.ParseInt(r.Hi, 10, 64)
	if errLo == nil && errHi == nil && !r.Float {
		if r.LoOpen || r.HiOpen {
			t.Fatalf("%s: an open integer range", r.Key)
		}
		return []string{r.Lo, r.Hi}, []string{strconv.FormatInt(loI-1, 10), strconv.FormatInt(hiI+1, 10)}
	}
	lo, err1 := strconv.ParseFloat(r.Lo, 64)
	hi, err2 := strconv.ParseFloat(r.Hi, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("%s: range %s: not numbers", r.Key, r.Text)
	}
	step := (hi - lo) / 1000
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	if r.LoOpen {
		bad, ok = append(bad, f(lo)), append(ok, f(lo+step))
	} else {
		ok, bad = append(ok, f(lo)), append(bad, f(lo-step))
	}
	if r.HiOpen {
		bad, ok = append(bad, f(hi)), append(ok, f(hi-step))
	} else {
		ok, bad = append(ok, f(hi)), append(bad, f(hi+step))
	}
	return ok, bad
}

// load loads a settings file setting r's key to v.
func load(t *testing.T, r refdoc.Range, v string) error {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"prompt.tmpl": "{{.Query}}", "golden.json": `[{"id": "q1", "query": "a", "expected_passages": [{"doc_id": "d1", "relevance": 1}]}]`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "tune.yaml")
	if err := os.WriteFile(path, []byte(r.YAML(v)), 0o644); err != nil {
		t.Fatal(err)
	}
	var s settings.Settings
	return settings.Load(&s, &s, path, nil, nil)
}

// TestExitCodesDocumented: the exit codes page documents every Exit*
// constant of cmd/tune/internal/cli.
func TestExitCodesDocumented(t *testing.T) {
	names, documented := refdoc.ExitCodeNames(root)
	slices.Sort(names)
	slices.Sort(documented)
	if !slices.Equal(names, documented) || len(names) < 4 {
		t.Errorf("cli declares %v; the page documents %v", names, documented)
	}
}
