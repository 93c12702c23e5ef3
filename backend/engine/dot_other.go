//go:build !amd64 || noasm || gccgo || safe

package engine

// dotKernel is false: gonum's own kernel computes every similarity.
const dotKernel = false

// prefilterKernel is false: every dense search scans every row.
const prefilterKernel = false

func dotRows4(q, a *float32, dim, groups uintptr, out *float32) {
	panic("dotRows4: no kernel on this platform")
}

func dotRowsAt4(q, a *float32, dim uintptr, rows *int32, groups uintptr, out *float32) {
	panic("dotRowsAt4: no kernel on this platform")
}

func dotI8Rows4(q *int16, a *int8, dim, groups uintptr, out *int32) {
	panic("dotI8Rows4: no kernel on this platform")
}
