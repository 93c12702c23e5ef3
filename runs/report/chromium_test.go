package report_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/runs/report"
)

var screenshot = flag.String("screenshot", "", "also save the Chromium screenshot of the fixture's report to this file")

// chromium finds Debian's chromium (or a chrome binary); the test skips
// without one.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not installed, and CI is set: .ci/run should have installed it")
	}
	t.Skip("chromium not installed (apt-get install chromium; .ci/run installs it)")
	return ""
}

// headless runs chromium on the page with args and returns its stdout.
func headless(t *testing.T, bin, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// TestReportInChromium opens the fixture's report, as recorded and with
// statistics and replay modes filled in, in headless Chromium: the DOM
// holds the leaderboard and the charts, and the screenshot is a PNG of the
// requested size that shows the page, not a blank or uniform image.
func TestReportInChromium(t *testing.T) {
	bin := chromium(t)
	tests := []struct {
		name  string
		setup func(*testing.T, *runs.Run)
		want  []string
	}{
		{"recorded run", func(*testing.T, *runs.Run) {}, []string{"No replay in this run"}},
		{"with statistics and replay", withStatistics, []string{"interval of the decision", "verified"}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := loadFixture(t)
			tc.setup(t, run)
			page, err := report.Write(run, report.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			checkDOM(t, headless(t, bin, page, "--dump-dom"), tc.want)
			save := ""
			if *screenshot != "" {
				save = strings.TrimSuffix(*screenshot, ".png") + fmt.Sprintf("-%d.png", i+1)
			}
			checkScreenshot(t, bin, page, save)
		})
	}
}

// checkDOM checks the page Chromium parsed: the leaderboard's five rows,
// the charts and the failures section.
func checkDOM(t *testing.T, dom []byte, want []string) {
	t.Helper()
	for _, w := range append([]string{"rrf-k200-bm25-0.7", "unreachable-embedder", "<svg", "Worst queries of the best trial"}, want...) {
		if !bytes.Contains(dom, []byte(w)) {
			t.Errorf("rendered DOM lacks %q", w)
		}
	}
	board := dom
	if i, j := bytes.Index(dom, []byte(`id="leaderboard"`)), bytes.Index(dom, []byte(`id="categories"`)); i >= 0 && j > i {
		board = dom[i:j]
	}
	if n := bytes.Count(board, []byte("<tr class=")); n != 5 {
		t.Errorf("rendered DOM has %d leaderboard rows, want 5", n)
	}
}

// checkScreenshot takes a 1280×1800 screenshot and checks that it is a PNG
// of that size showing the page: many colours, text, and the red bars of
// the best trial (so the inline SVG rendered). save, if set, keeps a copy.
func checkScreenshot(t *testing.T, bin, page, save string) {
	t.Helper()
	const w, h = 1280, 1800
	shot := filepath.Join(t.TempDir(), "report.png")
	headless(t, bin, page, "--screenshot="+shot, fmt.Sprintf("--window-size=%d,%d", w, h))
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	if save != "" {
		if err := os.WriteFile(save, data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot saved to %s", save)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), w, h)
	}
	colors, red, dark := census(img)
	t.Logf("screenshot %dx%d: %d colours, %d best-bar red pixels, %d dark pixels", w, h, colors, red, dark)
	if colors < 32 {
		t.Errorf("screenshot has %d distinct colours: blank or uniform", colors)
	}
	if dark < 2000 {
		t.Errorf("screenshot has %d dark (text) pixels: no text rendered", dark)
	}
	// The best trial's category bars are #c0392b; a page whose SVG did not
	// render has only the small red tag and the failed trial's text.
	if red < 5000 {
		t.Errorf("screenshot has %d pixels of the best trial's bar colour: the category chart did not render", red)
	}
}

// census counts distinct colours, pixels near the best-bar red and dark
// (text) pixels.
func census(img image.Image) (colors, red, dark int) {
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			seen[[3]uint32{r, g, bl}] = true
			if near(r, 0xc0) && near(g, 0x39) && near(bl, 0x2b) {
				red++
			}
			if r < 80 && g < 80 && bl < 80 {
				dark++
			}
		}
	}
	return len(seen), red, dark
}

func near(v, want uint32) bool { return v+6 >= want && v <= want+6 }
