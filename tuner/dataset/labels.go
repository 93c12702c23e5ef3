package dataset

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// LabelsInfo records the label store a dataset's judgments were merged
// with: written into the run's snapshot (golden.json.sha256.json, key
// "labels").
type LabelsInfo struct {
	// URL is the store's URL with any password replaced.
	URL     string `json:"url"`
	Dataset string `json:"dataset"`
	// Provenance counts the merged judgments by source: the golden set's
	// own (gold) and the labels that added to them.
	Provenance labels.Provenance `json:"provenance"`
}

// DatasetID returns the dataset id of ds in a label store: Config.ID when
// set, else "demo" for the shipped demo, else the golden set's file name
// without its extension ("scifact" for a BEIR folder .../scifact).
func (ds *Dataset) DatasetID() string {
	switch {
	case ds.Config.ID != "":
		return ds.Config.ID
	case ds.Demo:
		return "demo"
	}
	return DatasetIDOf(ds.Config.Path)
}

// MergeLabels merges the label store at url into the judgments of ds's
// queries (labels.Effective: the golden set's own judgments win, then
// human > file > llm > implicit, then the newest), under dataset id, and
// records the provenance in ds.Labels for the run's snapshot. Labels of
// queries ds does not hold (another split's) are left out.
func (ds *Dataset) MergeLabels(ctx context.Context, url, id string) error {
	ds.Config.ID = id
	st, err := labels.Open(ctx, url)
	if err != nil {
		return inputerr.Wrap(fmt.Errorf("dataset.labels: %w", err))
	}
	defer st.Close()
	ls, err := st.Latest(ctx, id)
	if err != nil {
		return fmt.Errorf("dataset.labels: %w", err)
	}
	loc, _ := labels.ParseURL(url)
	ds.Labels = &LabelsInfo{URL: loc.Redacted, Dataset: id, Provenance: ds.applyLabels(ls)}
	return nil
}

// applyLabels merges ls into the queries' judgments and returns their
// provenance (counted over ds's queries only).
func (ds *Dataset) applyLabels(ls []labels.Label) labels.Provenance {
	known := make(map[string]bool, len(ds.Queries))
	gold := make(map[string]map[string]int, len(ds.Queries))
	for _, q := range ds.Queries {
		known[q.ID] = true
		if len(q.Judgments) > 0 {
			gold[q.ID] = q.Judgments
		}
	}
	kept := ls[:0:0]
	for _, l := range ls {
		if known[l.Query] {
			kept = append(kept, l)
		}
	}
	merged, prov := labels.Effective(gold, kept)
	for i := range ds.Queries {
		if j, ok := merged[ds.Queries[i].ID]; ok {
			ds.Queries[i].Judgments = j
		}
	}
	return prov
}

// RunDatasetID is the dataset id of run's golden set, the key of its
// labels in a label store: the snapshot's dataset_id (the dataset.id
// setting) when set, else the golden set's file name without its
// extension ("scifact" for a BEIR folder ../shared/data/scifact).
func RunDatasetID(run *runs.Run) string {
	data, err := os.ReadFile(filepath.Join(run.Dir, goldenInfoFile))
	if err != nil {
		return ""
	}
	var info struct {
		ID   string `json:"dataset_id"`
		Path string `json:"path"`
	}
	if json.Unmarshal(data, &info) != nil {
		return ""
	}
	if info.ID != "" {
		return info.ID
	}
	if strings.HasPrefix(filepath.Base(filepath.Dir(info.Path)), "demo-") {
		return "demo" // a run recorded before dataset_id: the extracted demo
	}
	return DatasetIDOf(info.Path)
}

// DatasetIDOf is the dataset id of a golden set at path: its base name
// without the extension.
func DatasetIDOf(path string) string {
	base := filepath.Base(filepath.Clean(path))
	if base == "." || base == "/" {
		return ""
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// goldenInfoFile is the run's record of its golden set (Dataset.Snapshot).
const goldenInfoFile = "golden.json.sha256.json"
