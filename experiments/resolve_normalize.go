package experiments

import (
	"unicode"
	"unicode/utf8"
)

// asciiSpace marks the ASCII bytes unicode.IsSpace reports as white space.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// normalize lowercases s and turns every run of white space into one space,
// dropping leading and trailing space. With offsets, it also returns, for
// each byte of the result, the byte offset in s of the rune it came from.
// ASCII bytes take a fast path with the same result as unicode.IsSpace
// and unicode.ToLower.
func normalize(s string, offsets bool) (string, []int32) {
	b := make([]byte, 0, len(s))
	var orig []int32
	if offsets {
		orig = make([]int32, 0, len(s))
	}
	space := -1 // offset of a pending white-space run, or -1
	for i := 0; i < len(s); {
		c := s[i]
		if !offsets && c < utf8.RuneSelf && !asciiSpace[c] && space < 0 {
			// A run of ASCII bytes that are neither space nor upper
			// case is copied as it is.
			j := i + 1
			for j < len(s) && s[j] < utf8.RuneSelf && !asciiSpace[s[j]] && (s[j] < 'A' || s[j] > 'Z') {
				j++
			}
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			b = append(b, s[i+1:j]...)
			i = j
			continue
		}
		r, w := rune(c), 1
		if c >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(s[i:])
		}
		if c < utf8.RuneSelf && asciiSpace[c] || c >= utf8.RuneSelf && unicode.IsSpace(r) {
			if space < 0 {
				space = i
			}
			i += w
			continue
		}
		if space >= 0 && len(b) > 0 {
			b = append(b, ' ')
			if offsets {
				orig = append(orig, int32(space))
			}
		}
		space = -1
		n := len(b)
		switch {
		case c < utf8.RuneSelf:
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
		default:
			b = utf8.AppendRune(b, unicode.ToLower(r))
		}
		for k := n; offsets && k < len(b); k++ {
			orig = append(orig, int32(i))
		}
		i += w
	}
	return string(b), orig
}

// originalSpan maps the normalized span [start, end) of text back to the
// byte span of text it came from: from the first byte of the rune that
// produced norm[start] to the end of the rune that produced norm[end-1].
func originalSpan(text string, orig []int32, start, end int) (int, int) {
	last := int(orig[end-1])
	_, w := utf8.DecodeRuneInString(text[last:])
	return int(orig[start]), last + w
}
