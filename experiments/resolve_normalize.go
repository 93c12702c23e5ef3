package experiments

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// normalize lowercases s and turns every run of white space into one space,
// dropping leading and trailing space. With offsets, it also returns, for
// each byte of the result, the byte offset in s of the rune it came from.
func normalize(s string, offsets bool) (string, []int32) {
	var b strings.Builder
	b.Grow(len(s))
	var orig []int32
	if offsets {
		orig = make([]int32, 0, len(s))
	}
	space := -1 // offset of a pending white-space run, or -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if space < 0 {
				space = i
			}
			continue
		}
		if space >= 0 && b.Len() > 0 {
			b.WriteByte(' ')
			if offsets {
				orig = append(orig, int32(space))
			}
		}
		space = -1
		lr := unicode.ToLower(r)
		n := b.Len()
		if lr < utf8.RuneSelf {
			b.WriteByte(byte(lr))
		} else {
			b.WriteRune(lr)
		}
		for k := n; offsets && k < b.Len(); k++ {
			orig = append(orig, int32(i))
		}
	}
	return b.String(), orig
}

// originalSpan maps the normalized span [start, end) of text back to the
// byte span of text it came from: from the first byte of the rune that
// produced norm[start] to the end of the rune that produced norm[end-1].
func originalSpan(text string, orig []int32, start, end int) (int, int) {
	last := int(orig[end-1])
	_, w := utf8.DecodeRuneInString(text[last:])
	return int(orig[start]), last + w
}
