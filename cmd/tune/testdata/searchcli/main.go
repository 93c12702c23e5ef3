// Command searchcli is a command-line search program for the tests of the
// command backend kind, printing results on stdout the way CLI search
// tools do:
//
//	searchcli http URL QUERY K      ask a search service (tune serve) and print
//	                                "N. doc://ID score=S" lines
//	searchcli json URL QUERY K      the same, as {"results": [{"uri", "score", "snippet"}]}
//	searchcli canned FILE QUERY K   print the lines FILE (JSON: query -> ids) holds
//	                                for QUERY
//	searchcli sleep D QUERY K       sleep D, then print nothing
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: searchcli http|json|canned|sleep ARG QUERY K")
		os.Exit(2)
	}
	mode, arg, query := os.Args[1], os.Args[2], os.Args[3]
	k, err := strconv.Atoi(os.Args[4])
	if err != nil {
		fmt.Fprintln(os.Stderr, "searchcli: K:", err)
		os.Exit(2)
	}
	switch mode {
	case "http", "json":
		body, _ := json.Marshal(map[string]any{"query": query, "k": k})
		resp, err := http.Post(arg, "application/json", bytes.NewReader(body))
		if err != nil {
			fmt.Fprintln(os.Stderr, "searchcli:", err)
			os.Exit(1)
		}
		defer resp.Body.Close()
		var out struct {
			Hits []struct {
				DocID string  `json:"doc_id"`
				Score float64 `json:"score"`
				Text  string  `json:"text"`
			} `json:"hits"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			fmt.Fprintln(os.Stderr, "searchcli:", err)
			os.Exit(1)
		}
		if mode == "json" {
			type result struct {
				URI     string  `json:"uri"`
				Score   float64 `json:"score"`
				Snippet string  `json:"snippet"`
			}
			rs := []result{}
			for _, h := range out.Hits {
				rs = append(rs, result{h.DocID, h.Score, h.Text})
			}
			json.NewEncoder(os.Stdout).Encode(map[string]any{"query": query, "results": rs})
			return
		}
		fmt.Printf("Results for %q\n", query)
		for i, h := range out.Hits {
			fmt.Printf("%d. doc://%s score=%s\n", i+1, h.DocID, strconv.FormatFloat(h.Score, 'g', -1, 64))
		}
	case "canned":
		data, err := os.ReadFile(arg)
		if err != nil {
			fmt.Fprintln(os.Stderr, "searchcli:", err)
			os.Exit(1)
		}
		var canned map[string][]string
		if err := json.Unmarshal(data, &canned); err != nil {
			fmt.Fprintln(os.Stderr, "searchcli:", err)
			os.Exit(1)
		}
		for i, id := range canned[query] {
			if i < k {
				fmt.Printf("%d. %s\n", i+1, id)
			}
		}
	case "sleep":
		d, _ := time.ParseDuration(arg)
		time.Sleep(d)
	default:
		fmt.Fprintln(os.Stderr, "searchcli: unknown mode", mode)
		os.Exit(2)
	}
}
