package replay

import (
	"strconv"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// TestAppendUnits: a key line's document ids, appended from the quoted
// ids Prepare keeps (two words for a short one), are the bytes
// strconv.AppendQuote gives — for ids of every length around the
// 16-byte words, ids to escape, long ids that take the room short ones
// are written into, and a line that starts full.
func TestAppendUnits(t *testing.T) {
	ids := []string{"1", "4983", "abcdefghijkl", "abcdefghijklm", "abcdefghijklmn", "tab\there", `quote"d`, "é"}
	for i := range 6 { // long ids, which come before most short ones below
		ids = append(ids, strconv.Itoa(i)+strings.Repeat("x", 40))
	}
	var cands []fusion.Candidate
	for i, id := range ids {
		cands = append(cands, fusion.Candidate{ID: id, DocID: id, Score: float64(len(ids) - i), Rank: i + 1})
	}
	pl := fusion.Prepare(map[string][]fusion.Candidate{"bm25": cands})
	sc, err := scoring.NewScorer("default", nil, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	rp := NewReplayer(sc, 10)
	rq := rp.Prepare(scoring.Query{ID: "q"}, pl)
	docIDs := pl.DocIDs(false)
	var units []fusion.Ranked
	for _, long := range []bool{true, false} { // every unit, the long ids first
		for u, d := range docIDs {
			if (len(d) > 20) == long {
				units = append(units, fusion.Ranked{Unit: int32(u)})
			}
		}
	}
	for _, start := range []string{"", "\"q\" \"search\" \"\" 0.5", strings.Repeat("y", 200)} {
		want := []byte(start)
		for _, x := range units {
			want = strconv.AppendQuote(append(want, ' '), docIDs[x.Unit])
		}
		got := appendUnits([]byte(start)[:len(start):len(start)], &rq, units)
		if string(got) != string(want) {
			t.Errorf("line starting %q:\n got %q\nwant %q", start, got, want)
		}
	}
}
