// Command vecservice is a search service that has no vectorizer: a
// client sends each query's embedding with the query, and the service
// ranks its documents by the cosine of their vectors with it. Tests start
// it on loopback as an engine the tuner reaches through the process and
// http kinds, whose request templates must send .vector.
//
//	vecservice --listen 127.0.0.1:PORT --config service.json
//
// service.json: {"vectors": "docs.jsonl", "log": "requests.jsonl",
// "floor": -1}: the documents' vectors (JSON lines {"id", "vector"}), a
// file to which every search request is appended as received (query and
// vector), and the lowest cosine returned. POST /search takes {"query",
// "vector", "k"} and answers {"hits": [{"doc_id", "score"}]}, best first
// (ties by id), each score a string holding the float64 cosine exactly;
// a vector of another dimension than the documents' is a 400.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"net/http"
	"os"
	"sort"
	"strconv"
	"sync"
)

type config struct {
	Vectors string  `json:"vectors"`
	Log     string  `json:"log"`
	Floor   float64 `json:"floor"`
}

type doc struct {
	ID     string    `json:"id"`
	Vector []float32 `json:"vector"`
}

func main() {
	listen := flag.String("listen", "", "address")
	path := flag.String("config", "", "config file")
	flag.Parse()
	var c config
	data, err := os.ReadFile(*path)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		log.Fatalf("%s: %v", *path, err)
	}
	docs, err := readDocs(c.Vectors)
	if err != nil {
		log.Fatal(err)
	}
	reqLog, err := os.OpenFile(c.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	var mu sync.Mutex
	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	http.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Query  string    `json:"query"`
			Vector []float32 `json:"vector"`
			K      int       `json:"k"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if len(req.Vector) != len(docs[0].Vector) {
			http.Error(w, fmt.Sprintf("vector: want %d dimensions (got %d)", len(docs[0].Vector), len(req.Vector)), http.StatusBadRequest)
			return
		}
		line, _ := json.Marshal(map[string]any{"query": req.Query, "vector": req.Vector})
		mu.Lock()
		_, err := reqLog.Write(append(line, '\n'))
		mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		type hit struct {
			DocID string  `json:"doc_id"`
			score float64 // the cosine
			Score string  `json:"score"`
		}
		var hits []hit
		for _, d := range docs {
			if s := Cosine(req.Vector, d.Vector); s >= c.Floor {
				hits = append(hits, hit{DocID: d.ID, score: s})
			}
		}
		sort.Slice(hits, func(i, j int) bool {
			if hits[i].score != hits[j].score {
				return hits[i].score > hits[j].score
			}
			return hits[i].DocID < hits[j].DocID
		})
		if len(hits) > req.K {
			hits = hits[:req.K]
		}
		for i := range hits {
			hits[i].Score = strconv.FormatFloat(hits[i].score, 'g', -1, 64)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"hits": append([]hit{}, hits...)})
	})
	log.Fatal(http.ListenAndServe(*listen, nil))
}

func readDocs(path string) ([]doc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var docs []doc
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var d doc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		docs = append(docs, d)
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s: no vectors", path)
	}
	return docs, sc.Err()
}

// Cosine is the cosine of a and b, accumulated in float64 in index order
// (0 when either is zero).
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}
