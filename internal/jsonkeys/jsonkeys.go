package jsonkeys

import (
	"bytes"
	"encoding/json"
)

// Duplicate returns the first key given twice in one object of data (at
// any depth) and true; "" and false when there is none or data is not
// JSON (its decoder reports that).
func Duplicate(data []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		keys  map[string]bool
		isObj bool
		key   bool // the next string token is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		if n := len(stack); n > 0 && stack[n-1].isObj && stack[n-1].key {
			if k, ok := tok.(string); ok {
				if stack[n-1].keys[k] {
					return k, true
				}
				stack[n-1].keys[k] = true
				stack[n-1].key = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, isObj: true, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended: in an object the next token is a key.
		if n := len(stack); n > 0 && stack[n-1].isObj {
			stack[n-1].key = true
		}
		if len(stack) == 0 && !dec.More() {
			return "", false
		}
	}
}
