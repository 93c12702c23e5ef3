package embed

import (
	"encoding/json"
	"io"
)

// WriteDocument writes one document line of the file:<path> format,
// {"id": id, "vector": [...]}, each value the shortest decimal of its
// float32 (FormatVector).
func WriteDocument(w io.Writer, id string, v []float32) error {
	return writeLine(w, "id", id, v)
}

// WriteQuery writes one query line of the file:<path> format,
// {"query": text, "vector": [...]}.
func WriteQuery(w io.Writer, text string, v []float32) error {
	return writeLine(w, "query", text, v)
}

func writeLine(w io.Writer, key, value string, v []float32) error {
	k, _ := json.Marshal(key)
	s, _ := json.Marshal(value)
	line := make([]byte, 0, len(s)+16+len(v)*12)
	line = append(line, '{')
	line = append(line, k...)
	line = append(line, ": "...)
	line = append(line, s...)
	line = append(line, `, "vector": `...)
	line = append(line, FormatVector(v)...)
	line = append(line, "}\n"...)
	_, err := w.Write(line)
	return err
}
