package corpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// MetadataField is the member of a corpus line holding an object of
// further fields (BEIR's "metadata"), read by DocFields.
const MetadataField = "metadata"

// DocFields returns the members of the corpus line b (one JSON object)
// that names lists, each as text: a string as itself, a number as its
// literal ("3"), true and false as words; a member that is null, an
// object or a list is left out. A name the line lacks at its top level
// is looked up in its MetadataField object. The result is nil when the
// line has none of the names; a line that is not a JSON object is an
// error.
func DocFields(b []byte, names []string) (map[string]string, error) {
	mentioned := false
	for _, n := range names {
		if bytes.Contains(b, []byte(strconv.Quote(n))) {
			mentioned = true
			break
		}
	}
	if !mentioned { // the common case: none of the names, nothing to decode
		return nil, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("expected a JSON object: %w", err)
	}
	var meta map[string]json.RawMessage
	if raw, ok := top[MetadataField]; ok {
		_ = json.Unmarshal(raw, &meta) // not an object: no metadata
	}
	var out map[string]string
	for _, n := range names {
		raw, ok := top[n]
		if !ok {
			raw, ok = meta[n]
		}
		if !ok {
			continue
		}
		if v, ok := fieldText(raw); ok {
			if out == nil {
				out = map[string]string{}
			}
			out[n] = v
		}
	}
	return out, nil
}

// fieldText is a JSON scalar as text (DocFields); false for null, an
// object or a list.
func fieldText(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	case 't', 'f':
		return string(raw), string(raw) == "true" || string(raw) == "false"
	case 'n', '{', '[':
		return "", false
	}
	return string(raw), true // a number's literal
}
