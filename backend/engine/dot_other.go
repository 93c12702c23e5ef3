//go:build !amd64 || noasm || gccgo || safe

package engine

// dotKernel is false: gonum's own kernel computes every similarity.
const dotKernel = false

func dotRows4(q, a *float32, dim, groups uintptr, out *float32) {
	panic("dotRows4: no kernel on this platform")
}
