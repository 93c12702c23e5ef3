// Package querylog is the query-log format of fusiontune: one JSON object
// per line, a "search" event for every answered search (or a sample of
// them) and a "feedback" event for what the user did next (a click on a
// result, or a new search instead). `tune serve` writes it (Writer); any
// other system can write the same lines, and `tune harvest`, the click
// model and `tune shadow` read it (Read).
//
// A search event:
//
//	{"type":"search","time":"2026-11-24T07:00:00.123Z","request_id":"r1",
//	 "query":"return a damaged item","category":"howto","k":10,
//	 "results":[{"id":"faq-returns","score":0.0328,"ranks":{"bm25":1,"dense":2}}],
//	 "latency_ms":1.42,"config":"3f2a9c01d4e5"}
//
// A feedback event names the search it belongs to:
//
//	{"type":"feedback","time":"2026-11-24T07:00:05Z","request_id":"r1",
//	 "action":"click","doc_id":"faq-returns","position":1}
//
// action is "click" (doc_id required; position, 1-based, is taken from the
// search's results when omitted) or "research" (the user searched again
// instead). A shadow event (tune serve's live shadow mode) is another
// configuration's answer to a logged search, with its diff against the
// served results:
//
//	{"type":"shadow","time":"2026-11-24T07:00:00.125Z","request_id":"r1",
//	 "results":[{"id":"faq-shipping","score":0.031}],"latency_ms":1.1,
//	 "config":"9b1c77e2aa40","diff":{"class":"major","kendall_tau":-0.2,
//	 "jaccard":0.5,"top1_changed":true}}
//
// Fields not listed here are ignored, so a system may log more; request
// headers are never part of the format.
//
// Imports of ours: internal/hashmix, internal/userfile.
package querylog
