package runs

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func jsonLine(t *testing.T, q QueryResult) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(q); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestAppendQueryResult compares the fast encoder with encoding/json on
// hand-picked and random values.
func TestAppendQueryResult(t *testing.T) {
	cases := []QueryResult{
		{},
		{QueryID: "q1", Top: []RankedDoc{}, Scores: map[string]float64{}},
		{QueryID: `q"2\`, Category: "misspelled", Top: []RankedDoc{{DocID: "d<1>&", Score: 0.016393442622950821, Grade: -1}, {DocID: "é\u2028\x01", Score: 1e-7, Grade: 3, Text: "a <b> \"text\"\u2028\x01 ünïcode"}},
			Labels: "1:L? | 2:L3", Scores: map[string]float64{"NDCG@10": 0.5, "ERR@10": 1e21, "P@10": 0, "AP": 1e-6, "MRR@10": 123456789.125, "Z": -2.5e-9},
			Primary: 0.3333333333333333, Routing: "search", Expected: "no_results", RequestID: "run/001/q1", LatencyMS: 12.345, Error: "timed out\n"},
		{QueryID: "\xff\xfe bad utf-8", Scores: map[string]float64{"x": math.Copysign(0, -1)}, Unjudged: true},
		{QueryID: "q3", Scores: map[string]float64{}, Error: "status 500", OnError: "zero"},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		q := QueryResult{QueryID: randString(rng), Labels: randString(rng), RequestID: randString(rng), Primary: randFloat(rng), LatencyMS: randFloat(rng), Scores: map[string]float64{}}
		for range rng.IntN(20) {
			q.Scores[randString(rng)] = randFloat(rng)
		}
		for range rng.IntN(25) {
			q.Top = append(q.Top, RankedDoc{DocID: randString(rng), Score: randFloat(rng), Grade: rng.IntN(5) - 1})
		}
		cases = append(cases, q)
	}
	for i, q := range cases {
		got, ok := appendQueryResult(nil, &q)
		want := jsonLine(t, q)
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("case %d:\n got %s (ok %v)\nwant %s", i, got, ok, want)
		}
	}
	if _, ok := appendQueryResult(nil, &QueryResult{Primary: math.NaN()}); ok {
		t.Error("NaN accepted")
	}
}

func randString(rng *rand.Rand) string {
	const alphabet = "abcXYZ019@/_-. \"\\<>&\té\n"
	r := []rune(alphabet)
	var b strings.Builder
	for range rng.IntN(12) {
		b.WriteRune(r[rng.IntN(len(r))])
	}
	return b.String()
}

func randFloat(rng *rand.Rand) float64 {
	switch rng.IntN(4) {
	case 0:
		return rng.Float64()
	case 1:
		return math.Ldexp(rng.Float64(), rng.IntN(160)-80) * float64(1-2*rng.IntN(2))
	case 2:
		return float64(rng.IntN(1000))
	}
	return 1 / float64(60+rng.IntN(100))
}

// TestAppendQueryResultKnowsEveryField fails when QueryResult or RankedDoc
// gains a field the fast encoder does not write.
func TestAppendQueryResultKnowsEveryField(t *testing.T) {
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[QueryResult](): "query_id,category,top,labels,scores,primary,routing,expected_routing,request_id,latency_ms,error,unjudged,on_error",
		reflect.TypeFor[RankedDoc]():   "doc_id,score,grade,text",
	} {
		var names []string
		for f := range typ.Fields() {
			names = append(names, strings.Split(f.Tag.Get("json"), ",")[0])
		}
		if got := strings.Join(names, ","); got != want {
			t.Errorf("%s fields %s; appendQueryResult writes %s: update it", typ, got, want)
		}
	}
}
