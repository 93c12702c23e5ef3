package embed

import (
	"fmt"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"

	"github.com/fusiontune/fusiontune/internal/parallel"
)

// lapackImpl supplies the LAPACK pieces the QR below does not redo:
// block sizes, reflector generation and the blocked trailing updates.
var lapackImpl gonum.Implementation

// orthonormalize overwrites the r × c row-major a (r >= c) with the
// orthonormal Q of its thin QR factorization and returns it. It is
// LAPACK's dgeqrf + dorgqr step for step as gonum implements them (same
// block sizes, same calls), except that each elementary reflector is
// applied to the trailing columns on GOMAXPROCS goroutines, each taking a
// contiguous range of columns (see larfLeft): every entry is computed by
// the same operations in the same order as in gonum, so Q is bit for bit
// gonum's on any number of cores.
func orthonormalize(a []float64, r, c int) ([]float64, error) {
	if r < c {
		return nil, fmt.Errorf("randomized svd: qr of a wide %d × %d matrix", r, c)
	}
	if c == 0 {
		return a, nil
	}
	tau := make([]float64, c)
	nb := max(lapackImpl.Ilaenv(1, "DGEQRF", " ", r, c, -1, -1), lapackImpl.Ilaenv(1, "DORGQR", " ", r, c, c, -1), 1)
	work := make([]float64, c*nb)
	geqrf(r, c, a, c, tau, work)
	orgqr(r, c, a, c, tau, work)
	return a, nil
}

// geqrf is gonum's Dgeqrf with an lwork of at least n times its block
// size, calling geqr2 for its unblocked steps.
func geqrf(m, n int, a []float64, lda int, tau, work []float64) {
	k := min(m, n)
	nb := lapackImpl.Ilaenv(1, "DGEQRF", " ", m, n, -1, -1)
	var nx int
	if 1 < nb && nb < k {
		nx = max(0, lapackImpl.Ilaenv(3, "DGEQRF", " ", m, n, -1, -1))
	}
	var i int
	if 2 <= nb && nb < k && nx < k {
		ldwork := nb
		for i = 0; i < k-nx; i += nb {
			ib := min(k-i, nb)
			geqr2(m-i, ib, a[i*lda+i:], lda, tau[i:i+ib], work)
			if i+ib < n {
				applyBlock(blas.Trans, m-i, n-i-ib, ib, a[i*lda+i:], lda, tau[i:], work, ldwork)
			}
		}
	}
	if i < k {
		geqr2(m-i, n-i, a[i*lda+i:], lda, tau[i:], work)
	}
}

// applyBlock applies the block reflector H = I - V·T·Vᵀ of the ib
// reflectors stored in the first ib columns of the m-row a (from the
// left, Hᵀ for blas.Trans) to the n columns after them, as Dgeqrf and
// Dorgqr do: Dlarft forms T in work, Dlarfb applies it.
func applyBlock(trans blas.Transpose, m, n, ib int, a []float64, lda int, tau, work []float64, ldwork int) {
	lapackImpl.Dlarft(lapack.Forward, lapack.ColumnWise, m, ib, a, lda, tau, work, ldwork)
	lapackImpl.Dlarfb(blas.Left, trans, lapack.Forward, lapack.ColumnWise,
		m, n, ib, a, lda, work, ldwork, a[ib:], lda, work[ib*ldwork:], ldwork)
}

// geqr2 is gonum's Dgeqr2 applying each reflector with larfLeft.
func geqr2(m, n int, a []float64, lda int, tau, work []float64) {
	k := min(m, n)
	for i := 0; i < k; i++ {
		a[i*lda+i], tau[i] = lapackImpl.Dlarfg(m-i, a[i*lda+i], a[min(i+1, m-1)*lda+i:], lda)
		if i < n-1 {
			aii := a[i*lda+i]
			a[i*lda+i] = 1
			larfLeft(m-i, n-i-1, a[i*lda+i:], lda, tau[i], a[i*lda+i+1:], lda, work)
			a[i*lda+i] = aii
		}
	}
}

// orgqr is gonum's Dorgqr (k = n) with an lwork of at least n times its
// block size, calling org2r for its unblocked steps.
func orgqr(m, n int, a []float64, lda int, tau, work []float64) {
	k := n
	nb := lapackImpl.Ilaenv(1, "DORGQR", " ", m, n, k, -1)
	var nx, ldwork int
	if 1 < nb && nb < k {
		nx = max(0, lapackImpl.Ilaenv(3, "DORGQR", " ", m, n, k, -1))
		if nx < k {
			ldwork = nb
		}
	}
	var ki, kk int
	if 2 <= nb && nb < k && nx < k {
		ki = ((k - nx - 1) / nb) * nb
		kk = min(k, ki+nb)
		for i := 0; i < kk; i++ {
			for j := kk; j < n; j++ {
				a[i*lda+j] = 0
			}
		}
	}
	if kk < n {
		org2r(m-kk, n-kk, k-kk, a[kk*lda+kk:], lda, tau[kk:], work)
	}
	if kk > 0 {
		for i := ki; i >= 0; i -= nb {
			ib := min(nb, k-i)
			if i+ib < n {
				applyBlock(blas.NoTrans, m-i, n-i-ib, ib, a[i*lda+i:], lda, tau[i:], work, ldwork)
			}
			org2r(m-i, ib, ib, a[i*lda+i:], lda, tau[i:i+ib], work)
			for j := i; j < i+ib; j++ {
				for l := 0; l < i; l++ {
					a[l*lda+j] = 0
				}
			}
		}
	}
}

// org2r is gonum's Dorg2r applying each reflector with larfLeft.
func org2r(m, n, k int, a []float64, lda int, tau, work []float64) {
	if n == 0 {
		return
	}
	bi := blas64.Implementation()
	for l := 0; l < m; l++ {
		for j := k; j < n; j++ {
			a[l*lda+j] = 0
		}
	}
	for j := k; j < n; j++ {
		a[j*lda+j] = 1
	}
	for i := k - 1; i >= 0; i-- {
		clear(work)
		if i < n-1 {
			a[i*lda+i] = 1
			larfLeft(m-i, n-i-1, a[i*lda+i:], lda, tau[i], a[i*lda+i+1:], lda, work)
		}
		if i < m-1 {
			bi.Dscal(m-i-1, -tau[i], a[(i+1)*lda+i:], lda)
		}
		a[i*lda+i] = 1 - tau[i]
		for l := 0; l < i; l++ {
			a[l*lda+i] = 0
		}
	}
}

// larfMinWork is the number of entries of C from which larfLeft splits
// its columns across goroutines.
const larfMinWork = 1 << 15

// larfLeft is gonum's Dlarf(blas.Left, …): C = H·C for the elementary
// reflector H = I - tau·v·vᵀ, through w = Cᵀv (Dgemv) and C -= tau·v·wᵀ
// (Dger). Both are column by column: entry j of w sums down column j of
// C in row order, and column j of C changes by v·w[j]. So the columns are
// split into contiguous ranges, one Dgemv + Dger per range on its own
// goroutine, and every entry comes out as the single calls make it.
func larfLeft(m, n int, v []float64, incv int, tau float64, c []float64, ldc int, work []float64) {
	if m == 0 || n == 0 || tau == 0 {
		return
	}
	lastv := m - 1 // the last nonzero of v
	for i := lastv * incv; lastv >= 0 && v[i] == 0; i -= incv {
		lastv--
	}
	if lastv < 0 {
		return
	}
	lastc := lapackImpl.Iladlc(lastv+1, n, c, ldc) // the last nonzero column of C[0:lastv+1, :]
	if lastc < 0 {
		return
	}
	rows, cols := lastv+1, lastc+1
	bi := blas64.Implementation()
	apply := func(lo, hi int) {
		bi.Dgemv(blas.Trans, rows, hi-lo, 1, c[lo:], ldc, v, incv, 0, work[lo:hi], 1)
		bi.Dger(rows, hi-lo, -tau, v, incv, work[lo:hi], 1, c[lo:], ldc)
	}
	parts := min(runtime.GOMAXPROCS(0), cols/8)
	if parts < 2 || rows*cols < larfMinWork {
		apply(0, cols)
		return
	}
	parallel.For(parts, func(p int) { apply(cols*p/parts, cols*(p+1)/parts) })
}
