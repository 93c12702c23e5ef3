package runs_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// TestRecordJSONKeyOrder pins the order of the keys of a trial record and
// of a leaderboard entry, every field set: runs.Summary is embedded in
// both, and its fields must be written where they always were (the files
// of earlier runs and the recorded leaderboards compare byte for byte).
func TestRecordJSONKeyOrder(t *testing.T) {
	sum := runs.Summary{Scorecard: map[string]float64{"m": 1}, Categories: map[string]map[string]float64{"c": {"m": 1}},
		Difficulties: map[string]map[string]float64{"d": {"m": 1}}, Routing: ptr(1), Queries: 1, Failed: 1}
	tests := []struct {
		name string
		v    any
		want string
	}{
		{
			name: "trial record",
			v: runs.TrialRecord{Index: 1, Name: "t", Params: map[string]any{"k": 1}, Group: "g", Status: runs.StatusOK,
				Error: "e", Baseline: true, Primary: 1, Summary: sum, BackendConfig: "b", Mode: "live", Sampler: "tpe",
				Fraction: 1, Rungs: []runs.Rung{{}}, Replay: &runs.ReplayRef{Settings: json.RawMessage(`{}`)}},
			want: "index name params group status error baseline primary scorecard categories difficulties " +
				"routing_accuracy queries failed_queries backend_config mode sampler fraction rungs replay",
		},
		{
			name: "leaderboard entry",
			v: runs.Entry{Rank: 1, Name: "t", Params: map[string]any{"k": 1}, Status: runs.StatusOK, Mode: "live", Error: "e",
				Primary: 1, Delta: ptr(1), Comparison: &runs.Comparison{}, MetricComparisons: []runs.Comparison{{}},
				CategoryIntervals: map[string]runs.Interval{"c": {}}, Summary: sum, Index: 1, Sampler: "tpe", Fraction: 1},
			want: "rank name params status mode error primary delta_vs_baseline vs_baseline vs_baseline_metrics " +
				"category_intervals scorecard categories difficulties routing_accuracy queries failed_queries trial sampler fraction",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if got := topLevelKeys(t, data); !reflect.DeepEqual(got, strings.Fields(tt.want)) {
				t.Errorf("keys\n got  %v\n want %v", got, strings.Fields(tt.want))
			}
		})
	}
}

// topLevelKeys lists the keys of the JSON object data in order.
func topLevelKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}
