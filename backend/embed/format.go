package embed

import (
	"strconv"
	"strings"
)

// FormatVector writes v as "[x1,x2,...]" with each value's shortest decimal
// that parses back to the same float32: pgvector's text input and a
// GraphQL (or JSON) list alike.
func FormatVector(v []float32) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	b.WriteByte(']')
	return b.String()
}
