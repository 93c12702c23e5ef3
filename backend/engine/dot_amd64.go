//go:build !noasm && !gccgo && !safe

package engine

import "golang.org/x/sys/cpu"

// dotKernel reports whether dotRows4 may run: the CPU and the OS support
// AVX.
var dotKernel = cpu.X86.HasAVX

// prefilterKernel reports whether the dense prefilter's kernels
// (dotI8Rows4 and dotRowsAt4) may run: AVX2 as well.
var prefilterKernel = cpu.X86.HasAVX && cpu.X86.HasAVX2

// dotRows4 sets out[4g+j] to row 4g+j of a · q for groups groups of 4
// rows of dim values (a multiple of 16), a's rows back to back, with the
// summation of gonum's SSE DotUnitary(row, q) for a 16-byte aligned q:
// lane l of an 8-wide accumulator holds what DotUnitary's SUM (l < 4) or
// P_SUM (l >= 4) holds, each product added in the same order, then the
// same fold. Each row's result is bit for bit DotUnitary's
// (TestDotRowsMatchesGonum, FuzzDotRows); four rows at a time share the
// query's loads and overlap four dependency chains.
//
//go:noescape
func dotRows4(q, a *float32, dim, groups uintptr, out *float32)

// dotRowsAt4 is dotRows4 over the rows whose indices rows lists (groups
// groups of 4; a row may repeat) instead of rows back to back: out[j] is
// row rows[j] of a · q, bit for bit what dotRows4 gives that row.
//
//go:noescape
func dotRowsAt4(q, a *float32, dim uintptr, rows *int32, groups uintptr, out *float32)

// dotI8Rows4 sets out[4g+j] to the exact integer dot product of row 4g+j
// of a (int8 values) and q (int16 values) for groups groups of 4 rows of
// dim values (a multiple of 16), a's rows back to back. The caller keeps
// every sum within int32 (dim * 127 * max|q| < 2^31).
//
//go:noescape
func dotI8Rows4(q *int16, a *int8, dim, groups uintptr, out *int32)
