package trec

import "unsafe"

// unsafeString views b as a string. b must never be modified afterwards;
// intern guarantees that by never writing to a block below its length.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
