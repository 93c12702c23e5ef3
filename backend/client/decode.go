package client

import (
	"fmt"
	"net/http"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/internal/searchwire"
)

// decodeResponse decodes a /search response body as json.Unmarshal into
// a fresh backend.SearchResponse does (searchwire.DecodeResponse: bodies
// of the shape the embedded engine writes are read by a scanner that knows
// that shape — a replay's collection decodes 60,000 candidates and its
// verification 90,000 hits — anything else by json.Unmarshal itself).
func decodeResponse(data []byte) (backend.SearchResponse, error) {
	return searchwire.DecodeResponse[backend.SearchResponse](data)
}

// decodeAnswer decodes one answer line of /search/batch
// (searchwire.DecodeAnswer); a failed request's answer has Err set.
func decodeAnswer(line []byte) (backend.BatchAnswer, error) {
	wa, err := searchwire.DecodeAnswer[backend.SearchResponse](line)
	if err != nil {
		return backend.BatchAnswer{}, err
	}
	a := backend.BatchAnswer{Index: wa.Index, Response: wa.Response, Elapsed: wa.Elapsed}
	if wa.Status != 0 || wa.Error != "" {
		a.Err = fmt.Errorf("%w %d %s: %s", ErrStatus, wa.Status, http.StatusText(wa.Status), wa.Error)
	}
	return a, nil
}
