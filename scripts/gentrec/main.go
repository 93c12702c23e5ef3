// Command gentrec writes a deterministic synthetic TREC run and qrels for
// benchmarking `tune eval`: -queries queries with -docs results each, and
// about -judged graded judgments per query, a third of them on retrieved
// documents. The same flags always produce the same bytes.
//
//	go run ./scripts/gentrec -out DIR [-queries 5000] [-docs 1000] [-judged 60] [-seed 1]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

func main() {
	out := flag.String("out", "", "output `dir` (writes run.txt and qrels.txt)")
	queries := flag.Int("queries", 5000, "number of queries")
	docs := flag.Int("docs", 1000, "results per query")
	judged := flag.Int("judged", 60, "judgments per query")
	pool := flag.Int("pool", 1_000_000, "size of the document id space")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *out == "" || *queries <= 0 || *docs <= 0 || *judged < 0 || *pool < *docs+*judged {
		fmt.Fprintln(os.Stderr, "gentrec: need -out, positive -queries and -docs, and -pool >= -docs + -judged")
		os.Exit(2)
	}
	if err := generate(*out, *queries, *docs, *judged, *pool, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gentrec:", err)
		os.Exit(1)
	}
}

func generate(dir string, queries, docs, judged, pool int, seed uint64) error {
	rf, err := os.Create(filepath.Join(dir, "run.txt"))
	if err != nil {
		return err
	}
	defer rf.Close()
	qf, err := os.Create(filepath.Join(dir, "qrels.txt"))
	if err != nil {
		return err
	}
	defer qf.Close()
	rw := bufio.NewWriterSize(rf, 1<<20)
	qw := bufio.NewWriterSize(qf, 1<<20)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var line []byte
	for q := range queries {
		qid := "q" + strconv.Itoa(q+1)
		seen := make(map[int]bool, docs+judged)
		ranked := make([]int, 0, docs)
		for len(ranked) < docs {
			d := rng.IntN(pool)
			if !seen[d] {
				seen[d] = true
				ranked = append(ranked, d)
			}
		}
		score := 100.0
		for i, d := range ranked {
			score -= rng.Float64() * 0.1
			line = append(line[:0], qid...)
			line = append(line, " Q0 D"...)
			line = strconv.AppendInt(line, int64(d), 10)
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(i+1), 10)
			line = append(line, ' ')
			line = strconv.AppendFloat(line, score, 'f', 6, 64)
			line = append(line, " gen\n"...)
			rw.Write(line)
		}
		// A third of the judgments land on retrieved documents, weighted to
		// the top; the rest on documents the run missed.
		judgedSet := make(map[int]bool, judged)
		for j := range judged {
			var d int
			if j%3 == 0 {
				d = ranked[min(len(ranked)-1, int(rng.ExpFloat64()*float64(docs)/8))]
			} else {
				d = rng.IntN(pool)
			}
			if judgedSet[d] || (j%3 != 0 && seen[d]) {
				continue
			}
			judgedSet[d] = true
			line = append(line[:0], qid...)
			line = append(line, " 0 D"...)
			line = strconv.AppendInt(line, int64(d), 10)
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(rng.IntN(4)), 10)
			line = append(line, '\n')
			qw.Write(line)
		}
	}
	if err := rw.Flush(); err != nil {
		return err
	}
	return qw.Flush()
}
