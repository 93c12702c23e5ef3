package table_test

import (
	"fmt"
	"os"

	"github.com/fusiontune/fusiontune/internal/table"
)

// A listing parses its --format with the formats it offers and writes its
// table; the text and Markdown tables show a score with four decimals and
// a missing one as a dash, CSV and JSON carry the values.
func ExampleTable_Render() {
	score := func(v any) string { return fmt.Sprintf("%.4f", v) }
	t := &table.Table{Style: table.Plain, Missing: "—",
		Columns: []table.Column{{Header: "TRIAL", Key: "trial"}, {Header: "PRIMARY", Key: "primary", Display: score}}}
	t.Append("rrf k=60", 0.51234)
	t.Append("bm25 only", nil)
	for _, format := range []string{"text", "csv"} {
		f, err := table.All.Parse(format)
		if err != nil {
			fmt.Println(err)
			return
		}
		t.Render(os.Stdout, f)
	}
	// Output:
	// TRIAL      PRIMARY
	// rrf k=60   0.5123
	// bm25 only  —
	// trial,primary
	// rrf k=60,0.51234
	// bm25 only,
}
