package runs

import (
	"fmt"
	"io"
	"strconv"
)

// AllDatasets is the dataset id that picks every dataset the settings
// list (`tune check-quality --dataset-id all`).
const AllDatasets = "all"

// DatasetsQuality is one check of a backend on every listed dataset:
// a row per dataset, each the summary of the run that evaluated it.
type DatasetsQuality struct {
	Backend string `json:"backend"`
	// Metrics are the key metrics each row carries, in display order.
	Metrics  []string         `json:"metrics"`
	Datasets []DatasetQuality `json:"datasets"`
	// GatesPass is false when a gate failed on any dataset.
	GatesPass bool `json:"gates_pass"`
}

// DatasetQuality is one dataset's row: what `--dataset-id ID` alone
// reports, in brief. The run's quality.json has the whole summary.
type DatasetQuality struct {
	ID string `json:"id"`
	// Language lists the languages the dataset's queries carry
	// (comma-separated), empty when none does.
	Language string  `json:"language,omitempty"`
	Run      string  `json:"run"`
	Queries  int     `json:"queries"`
	Primary  float64 `json:"primary"`
	// Scores are the key metrics (DatasetsQuality.Metrics).
	Scores map[string]float64 `json:"scores"`
	// NoRelevant is the number of queries with no relevant result in
	// their first LabelDepth results; -1 when none was counted.
	NoRelevant int  `json:"queries_no_relevant"`
	GatesPass  bool `json:"gates_pass"`
}

// DatasetRow is q's row for dataset id with its queries' languages.
func DatasetRow(id, language string, q *Quality) DatasetQuality {
	r := DatasetQuality{ID: id, Language: language, Run: q.Run, Queries: q.Queries, Primary: Round(q.Primary),
		Scores: map[string]float64{}, NoRelevant: -1, GatesPass: q.GatesPass}
	for _, m := range KeyMetrics(q.Metrics) {
		r.Scores[m] = Round(q.Scorecard[m])
	}
	if q.TopLabels != nil {
		r.NoRelevant = q.TopLabels.NoRelevant
	}
	return r
}

// Render writes the check as text, md or json (the formats of Quality).
func (d DatasetsQuality) Render(w io.Writer, format string) error {
	return render(w, format, qualityFormats, document(d.render, d))
}

func (d DatasetsQuality) render(md bool) string {
	w := &textDoc{md: md, sub: true}
	title := fmt.Sprintf("Search quality: %s (%d datasets)", passFail(d.GatesPass), len(d.Datasets))
	if md {
		fmt.Fprintf(&w.b, "## %s\n\nBackend %s, evaluated as it runs on each dataset.\n", title, d.Backend)
	} else {
		fmt.Fprintf(&w.b, "%s\nbackend %s, evaluated as it runs on each dataset\n", title, d.Backend)
	}
	w.heading("By dataset")
	head := append([]string{"dataset", "language", "queries", "primary"}, d.Metrics...)
	head = append(head, fmt.Sprintf("no relevant@%d", LabelDepth), "gates", "run")
	var rows [][]string
	for _, r := range d.Datasets {
		noRel := "-"
		if r.NoRelevant >= 0 {
			noRel = strconv.Itoa(r.NoRelevant)
		}
		row := []string{r.ID, cellOr(r.Language), strconv.Itoa(r.Queries), f4(r.Primary)}
		for _, m := range d.Metrics {
			cell := "-"
			if v, ok := r.Scores[m]; ok {
				cell = f4(v)
			}
			row = append(row, cell)
		}
		rows = append(rows, append(row, noRel, passFail(r.GatesPass), r.Run))
	}
	w.table(head, rows)
	return w.b.String()
}

func cellOr(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// KeyMetrics are the first of a scorecard's metrics, those its tables by
// group or dataset show.
func KeyMetrics(metrics []string) []string { return metrics[:min(len(metrics), maxGroupMetrics)] }

// passFail is a gate result as the summaries show it.
func passFail(pass bool) string {
	if pass {
		return "PASS"
	}
	return "FAIL"
}
