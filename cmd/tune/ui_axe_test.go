package main_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// axeScript is axe-core as npm installs it into scripts/a11y (pinned in
// its package.json; .ci/run runs npm ci there).
var axeScript = filepath.Join("..", "..", "scripts", "a11y", "node_modules", "axe-core", "axe.min.js")

var (
	axeOnce   sync.Once
	axeSource string
)

// axeViolation is one rule axe-core found broken on a page.
type axeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

// axeCheck runs axe-core in the page ctx shows (injected through the
// DevTools protocol, so the page's Content-Security-Policy does not
// apply) and fails on any serious or critical violation of the WCAG 2 A
// and AA rules. Without axe-core it says how to install it, and fails
// under CI.
func axeCheck(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	axeOnce.Do(func() {
		if b, err := os.ReadFile(axeScript); err == nil {
			axeSource = string(b)
		}
	})
	if axeSource == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("axe-core not installed at %s, and CI is set: .ci/run runs npm ci --prefix scripts/a11y", axeScript)
		}
		t.Logf("%s: no accessibility check: axe-core not installed (npm ci --prefix scripts/a11y)", page)
		return
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof axe !== "undefined" || (function(){`+axeSource+`; return true})()`)); err != nil {
		t.Fatalf("%s: inject axe-core: %v", page, err)
	}
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](`axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}, resultTypes: ["violations"]})
		.then(r => JSON.stringify(r.violations.filter(v => v.impact === "serious" || v.impact === "critical")
		.map(v => ({id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map(n => n.target.join(" "))}))))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: run axe-core: %v", page, err)
	}
	var vs []axeViolation
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		t.Fatalf("%s: axe-core's answer %q: %v", page, out, err)
	}
	for _, v := range vs {
		t.Errorf("%s: accessibility: %s (%s): %s, at %v", page, v.ID, v.Impact, v.Help, v.Targets)
	}
}
