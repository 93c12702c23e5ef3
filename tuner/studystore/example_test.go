package studystore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/c-bata/goptuna"
	"github.com/fusiontune/fusiontune/tuner/studystore"
)

// A worker's loop: claim the next trial through the database, run it,
// finish it with its record, until the study has its budget.
func ExampleStore_Next() {
	dir, _ := os.MkdirTemp("", "studystore-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	s, err := studystore.Open(ctx, "sqlite:///"+filepath.Join(dir, "study.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	study, _ := s.Study("example", goptuna.StudyDirectionMaximize)
	for {
		c, outcome, err := s.Next(ctx, study.ID, 3, "worker-1")
		if err != nil || outcome != studystore.Claimed {
			fmt.Println(outcome, err)
			return
		}
		x, _ := (&goptuna.Trial{Study: study, ID: c.TrialID}).SuggestInt("x", c.Number, c.Number)
		_ = s.Finish(ctx, c.TrialID, "COMPLETE", float64(x), "worker-1", []byte(fmt.Sprintf(`{"x":%d}`, x)))
		fmt.Println("trial", c.Number, "x =", x)
	}
	// Output:
	// trial 0 x = 0
	// trial 1 x = 1
	// trial 2 x = 2
	// done <nil>
}
