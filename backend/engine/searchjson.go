package engine

import (
	"net/http"
	"sync"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/internal/searchwire"
)

// The /search response is written by searchwire.AppendResponse: the
// bytes encoding/json's Marshal writes for a backend.SearchResponse,
// without reflection and into a reused buffer (TestSearchResponseBytes).
// Responses with candidate lists (explain) are left to encoding/json.

// responseBufs holds the idle buffers of encoded responses.
var responseBufs = sync.Pool{New: func() any { return new([]byte) }}

// writeSearchResponse writes resp with status 200 as writeJSON would,
// byte for byte.
func writeSearchResponse(w http.ResponseWriter, resp *backend.SearchResponse) {
	bp := responseBufs.Get().(*[]byte)
	defer responseBufs.Put(bp)
	b, ok := searchwire.AppendResponse((*bp)[:0], resp)
	if !ok {
		writeJSON(w, http.StatusOK, resp)
		return
	}
	b = append(b, '\n')
	*bp = b
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}
