package report_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/runs/report"
)

// ExampleRender renders a recorded run's report into memory; report.Write
// would put it into the run directory as report.html.
func ExampleRender() {
	run, err := runs.Load("testdata/run")
	if err != nil {
		fmt.Println(err)
		return
	}
	var b bytes.Buffer
	if err := report.Render(&b, run, report.DefaultOptions()); err != nil {
		fmt.Println(err)
		return
	}
	page := b.String()
	fmt.Println(strings.SplitN(page, "\n", 2)[0])
	fmt.Println(strings.Count(page, "<svg"), "charts,", strings.Count(page, "<script"), "scripts")
	// Output:
	// <!DOCTYPE html>
	// 10 charts, 0 scripts
}
