package experiments_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

func ptr[T any](v T) *T { return &v }

func TestDatasetConfigWithDefaults(t *testing.T) {
	beir := filepath.Join("testdata", "golden", "beir.good")
	tests := []struct {
		name string
		in   experiments.DatasetConfig
		want experiments.DatasetConfig
	}{
		{"native file", experiments.DatasetConfig{ID: "a", Path: "g.json"},
			experiments.DatasetConfig{ID: "a", Path: "g.json", QrelsSplit: "test", Split: "all", SplitSeed: ptr(int64(1)), DevFraction: ptr(0.5)}},
		{"beir folder gets its corpus", experiments.DatasetConfig{ID: "b", Path: beir},
			experiments.DatasetConfig{ID: "b", Path: beir, Corpus: filepath.Join(beir, "corpus.jsonl"), QrelsSplit: "test", Split: "all", SplitSeed: ptr(int64(1)), DevFraction: ptr(0.5)}},
		{"set values kept, zero included", experiments.DatasetConfig{ID: "c", Path: beir, Corpus: "c.jsonl", QrelsSplit: "dev", Split: "test", SplitSeed: ptr(int64(0)), DevFraction: ptr(0.0)},
			experiments.DatasetConfig{ID: "c", Path: beir, Corpus: "c.jsonl", QrelsSplit: "dev", Split: "test", SplitSeed: ptr(int64(0)), DevFraction: ptr(0.0)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.in.WithDefaults()
			if got.ID != tc.want.ID || got.Path != tc.want.Path || got.Corpus != tc.want.Corpus || got.QrelsSplit != tc.want.QrelsSplit ||
				got.Split != tc.want.Split || *got.SplitSeed != *tc.want.SplitSeed || *got.DevFraction != *tc.want.DevFraction {
				t.Errorf("got %+v (seed %d, fraction %v), want %+v", got, *got.SplitSeed, *got.DevFraction, tc.want)
			}
		})
	}
}

func TestDatasetsValidate(t *testing.T) {
	ds := experiments.Datasets{
		{ID: "ok", Path: "g.json"},
		{ID: "ok", Path: "h.json"},
		{Path: "x", Format: "csv", Split: "train", DevFraction: ptr(1.5)},
		{ID: "t", Path: "topics.tsv", Format: "trec"},
		{ID: "b", Path: "dir", Format: "beir", Judgments: "q.txt"},
		{ID: "all", Path: "a.json"},
	}
	want := `datasets[1].id: duplicate dataset id "ok" (first in datasets[0])
datasets[2].id: required: a name to select the dataset with dataset_id
datasets[2].format: unknown format "csv" (expected native, trec or beir)
datasets[2].split: unknown split "train" (expected all, dev or test)
datasets[2].dev_fraction: must be between 0 and 1 (got 1.5)
datasets[3].judgments: required for format trec: a qrels or JSONL judgments file
datasets[4].judgments: not allowed for format beir: the folder carries its qrels
datasets[5].id: "all" is reserved: dataset_id all picks every dataset`
	err := ds.Validate()
	if err == nil || err.Error() != want {
		t.Errorf("got:\n%v\nwant:\n%s", err, want)
	}
	if err := ds[:1].Validate(); err != nil {
		t.Errorf("valid list rejected: %v", err)
	}
	if err := (experiments.DatasetConfig{}).Validate(); err == nil || err.Error() != "path: required: a golden-set file or BEIR folder" {
		t.Errorf("empty config: %v", err)
	}
}

func TestDatasetsLookupAndLoad(t *testing.T) {
	ds := experiments.Datasets{
		{ID: "basic", Path: "testdata/golden/basic.good.json", Split: "dev", DevFraction: ptr(1.0)},
		{ID: "beir", Path: "testdata/golden/beir.good"},
	}
	for _, tc := range []struct {
		id      string
		queries int
	}{{"basic", 3}, {"beir", 2}} {
		t.Run(tc.id, func(t *testing.T) {
			c, err := ds.Lookup(tc.id)
			if err != nil {
				t.Fatal(err)
			}
			gs, err := c.Load()
			if err != nil {
				t.Fatal(err)
			}
			if len(gs.Queries) != tc.queries {
				t.Errorf("%d queries, want %d", len(gs.Queries), tc.queries)
			}
		})
	}
	if _, err := ds.Lookup("nope"); !errors.Is(err, experiments.ErrUnknownDataset) {
		t.Errorf("Lookup(nope) = %v, want ErrUnknownDataset", err)
	}
}
