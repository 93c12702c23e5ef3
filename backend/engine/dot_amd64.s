//go:build !noasm && !gccgo && !safe

#include "textflag.h"

// ACC4 multiplies 8 values of each of the 4 rows at byte offset off by
// the same 8 values of the query (Y4 or Y5) and adds the products to the
// rows' accumulators Y0-Y3: VMULPS then VADDPS, no fused multiply-add, so
// each product and sum rounds as DotUnitary's MULPS and ADDPS round it,
// with the operands in its order (row * query, then sum + product), which
// also picks the same NaN when both are NaN.
#define ACC4(off, qv) \
	VMOVUPS off(DI)(AX*1), Y6  \
	VMULPS  qv, Y6, Y6         \
	VADDPS  Y6, Y0, Y0         \
	VMOVUPS off(R10)(AX*1), Y7 \
	VMULPS  qv, Y7, Y7         \
	VADDPS  Y7, Y1, Y1         \
	VMOVUPS off(R11)(AX*1), Y8 \
	VMULPS  qv, Y8, Y8         \
	VADDPS  Y8, Y2, Y2         \
	VMOVUPS off(R12)(AX*1), Y9 \
	VMULPS  qv, Y9, Y9         \
	VADDPS  Y9, Y3, Y3

// REDUCE folds an accumulator (lanes 0-3: gonum's SUM, lanes 4-7: its
// P_SUM) as DotUnitary does after its loop: SUM += P_SUM, then HADDPS
// twice, and stores the float32 result at off(R8).
#define REDUCE(y, x, off) \
	VEXTRACTF128 $1, y, X6 \
	VADDPS X6, x, x        \
	VHADDPS x, x, x        \
	VHADDPS x, x, x        \
	VMOVSS x, off(R8)

// func dotRows4(q, a *float32, dim, groups uintptr, out *float32)
TEXT ·dotRows4(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ a+8(FP), DI
	MOVQ dim+16(FP), BX
	MOVQ groups+24(FP), DX
	MOVQ out+32(FP), R8
	SHLQ $2, BX // BX = bytes of a row

group:
	LEAQ   (DI)(BX*1), R10
	LEAQ   (DI)(BX*2), R11
	LEAQ   (R10)(BX*2), R12
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   AX, AX

loop: // 16 values of each row: as one iteration of DotUnitary's loop
	VMOVUPS (SI)(AX*1), Y4
	VMOVUPS 32(SI)(AX*1), Y5
	ACC4(0, Y4)
	ACC4(32, Y5)
	ADDQ    $64, AX
	CMPQ    AX, BX
	JB      loop

	REDUCE(Y0, X0, 0)
	REDUCE(Y1, X1, 4)
	REDUCE(Y2, X2, 8)
	REDUCE(Y3, X3, 12)
	LEAQ (DI)(BX*4), DI
	ADDQ $16, R8
	DECQ DX
	JNZ  group
	VZEROUPPER
	RET

// func dotRowsAt4(q, a *float32, dim uintptr, rows *int32, groups uintptr, out *float32)
//
// dotRows4 over the rows listed in rows (4 a group) instead of rows back
// to back: the same loop and fold, only the rows' addresses differ.
TEXT ·dotRowsAt4(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), SI
	MOVQ a+8(FP), R9
	MOVQ dim+16(FP), BX
	MOVQ rows+24(FP), R13
	MOVQ groups+32(FP), DX
	MOVQ out+40(FP), R8
	SHLQ $2, BX // BX = bytes of a row

atgroup:
	MOVLQSX 0(R13), DI
	IMULQ   BX, DI
	ADDQ    R9, DI
	MOVLQSX 4(R13), R10
	IMULQ   BX, R10
	ADDQ    R9, R10
	MOVLQSX 8(R13), R11
	IMULQ   BX, R11
	ADDQ    R9, R11
	MOVLQSX 12(R13), R12
	IMULQ   BX, R12
	ADDQ    R9, R12
	VXORPS  Y0, Y0, Y0
	VXORPS  Y1, Y1, Y1
	VXORPS  Y2, Y2, Y2
	VXORPS  Y3, Y3, Y3
	XORQ    AX, AX

atloop:
	VMOVUPS (SI)(AX*1), Y4
	VMOVUPS 32(SI)(AX*1), Y5
	ACC4(0, Y4)
	ACC4(32, Y5)
	ADDQ    $64, AX
	CMPQ    AX, BX
	JB      atloop

	REDUCE(Y0, X0, 0)
	REDUCE(Y1, X1, 4)
	REDUCE(Y2, X2, 8)
	REDUCE(Y3, X3, 12)
	ADDQ $16, R13
	ADDQ $16, R8
	DECQ DX
	JNZ  atgroup
	VZEROUPPER
	RET

// IACC4 adds row · q for 16 int8 values of each of the 4 rows at byte
// offset AX (widened to int16) and the matching 16 int16 values of the
// query (Y4) to the rows' int32 accumulators Y0-Y3. Integer sums are
// exact, so the order does not matter.
#define IACC4 \
	VPMOVSXBW (DI)(AX*1), Y6  \
	VPMADDWD  Y4, Y6, Y6      \
	VPADDD    Y6, Y0, Y0      \
	VPMOVSXBW (R10)(AX*1), Y7 \
	VPMADDWD  Y4, Y7, Y7      \
	VPADDD    Y7, Y1, Y1      \
	VPMOVSXBW (R11)(AX*1), Y8 \
	VPMADDWD  Y4, Y8, Y8      \
	VPADDD    Y8, Y2, Y2      \
	VPMOVSXBW (R12)(AX*1), Y9 \
	VPMADDWD  Y4, Y9, Y9      \
	VPADDD    Y9, Y3, Y3

// IREDUCE sums the 8 int32 lanes of an accumulator into off(R8).
#define IREDUCE(y, x, off) \
	VEXTRACTI128 $1, y, X6 \
	VPADDD  X6, x, x       \
	VPHADDD x, x, x        \
	VPHADDD x, x, x        \
	VMOVD   x, off(R8)

// func dotI8Rows4(q *int16, a *int8, dim, groups uintptr, out *int32)
TEXT ·dotI8Rows4(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ a+8(FP), DI
	MOVQ dim+16(FP), BX // BX = bytes of a row
	MOVQ groups+24(FP), DX
	MOVQ out+32(FP), R8

igroup:
	LEAQ  (DI)(BX*1), R10
	LEAQ  (DI)(BX*2), R11
	LEAQ  (R10)(BX*2), R12
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	XORQ  AX, AX
	MOVQ  SI, CX

iloop: // 16 values of each row
	VMOVDQU (CX), Y4
	IACC4
	ADDQ    $32, CX
	ADDQ    $16, AX
	CMPQ    AX, BX
	JB      iloop

	IREDUCE(Y0, X0, 0)
	IREDUCE(Y1, X1, 4)
	IREDUCE(Y2, X2, 8)
	IREDUCE(Y3, X3, 12)
	LEAQ (DI)(BX*4), DI
	ADDQ $16, R8
	DECQ DX
	JNZ  igroup
	VZEROUPPER
	RET
