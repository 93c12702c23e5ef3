//go:build !noasm && !gccgo && !safe

package engine

import "golang.org/x/sys/cpu"

// dotKernel reports whether dotRows4 may run: the CPU and the OS support
// AVX.
var dotKernel = cpu.X86.HasAVX

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
