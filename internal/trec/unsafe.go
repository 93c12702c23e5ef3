package trec

import "unsafe"

// unsafeString views b as a string. b must not be modified while the
// string is in use: intern never writes to a block below its length, and
// ScanRunTransient and ResultBuffer.Set say when their strings end.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
