package judge_test

import (
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/judging/judge"
)

// FuzzReadPool never panics, and what it reads has its ids.
func FuzzReadPool(f *testing.F) {
	f.Add(`{"dataset":"demo","query":"q1","doc":"d7","priority":0.9,"trials":3,"best_rank":1}`)
	f.Add("{\"dataset\":\"demo\",\"query\":\"q1\",\"doc\":\"d7\"}\n{\"dataset\":\"demo\",\"query\":\"q1\",\"doc\":\"d7\"}")
	f.Fuzz(func(t *testing.T, in string) {
		es, err := judge.ReadPool(strings.NewReader(in), "p.jsonl")
		if err != nil {
			return
		}
		for _, e := range es {
			if e.Dataset == "" || e.Query == "" || e.Doc == "" {
				t.Fatalf("entry without ids: %+v", e)
			}
		}
	})
}

// FuzzReadFilled never panics, and every label it returns is valid and on
// the scale.
func FuzzReadFilled(f *testing.F) {
	f.Add("dataset\tquery\tdoc\tgrade\trationale\ndemo\tq1\td1\t2\tok\ndemo\tq1\td2\t\t\n")
	f.Add(`{"dataset":"demo","query":"q1","doc":"d1","grade":1,"rationale":"","query_text":"","doc_title":"","doc_text":""}`)
	f.Fuzz(func(t *testing.T, in string) {
		got, err := judge.ReadFilled(strings.NewReader(in), "f", "alice", 3, time.Unix(0, 0))
		if err != nil {
			return
		}
		for _, l := range got.Labels {
			if err := l.Validate(); err != nil || l.Grade > 3 {
				t.Fatalf("label %+v: %v", l, err)
			}
		}
	})
}
