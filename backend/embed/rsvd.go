package embed

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Randomized SVD settings (Halko, Martinsson & Tropp 2011).
const (
	rsvdOversample = 16 // extra random directions beyond the rank sought
	rsvdPowerIters = 2  // subspace (power) iterations
)

// rsvd holds the part of a truncated SVD X ≈ U Σ Vᵀ that LSA keeps.
type rsvd struct {
	v     *mat.Dense // X.cols × k right singular vectors (term space)
	sigma []float64  // k singular values, descending
}

// randomizedSVD computes the top k singular triplets' right side of the
// sparse n × m matrix x, for a document-term x with
// n documents and m terms:
//
//  1. Ω: m × l standard Gaussian from seed, l = min(k + oversample, n, m).
//  2. Y = X Ω; Q = qr(Y) (n × l, orthonormal columns).
//  3. Twice: Z = Xᵀ Q; Y = X Z; Q = qr(Y). Re-orthonormalizing on the
//     document side after each X Xᵀ keeps Q's columns from collapsing onto
//     the top singular vector; the m × l Z is not orthonormalized because
//     its QR would cost m·l² (the vocabulary is larger than the corpus) and
//     one X Xᵀ step between QRs loses no useful precision in float64.
//  4. W = Xᵀ Q, so B = Qᵀ X = Wᵀ (l × m). B Bᵀ = Qᵀ (X W) is l × l (csr.gram,
//     without the n × l X W); its SVD
//     (gonum mat.SVD) gives B Bᵀ = Ũ Λ Ũᵀ, so B = Ũ Σ Vᵀ with Σ = √Λ and
//     V = Bᵀ Ũ Σ⁻¹ = W Ũ Σ⁻¹ (m × l). Going through the l × l Gram matrix
//     avoids any dense m × l factorization; it squares the condition number
//     of B, which costs nothing visible for the leading k of l values.
//
// Components with a zero singular value get a zero column. Each column's
// sign is fixed so that its largest-magnitude entry is positive. The result
// depends only on x, k and seed.
func randomizedSVD(ctx context.Context, x *csr, k int, seed uint64) (*rsvd, error) {
	n, m := x.rows, x.cols
	l := min(k+rsvdOversample, n, m)
	if l < 1 {
		return nil, fmt.Errorf("randomized svd: empty %d × %d matrix", n, m)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	omega := make([]float64, m*l)
	for i := range omega {
		omega[i] = rng.NormFloat64()
	}
	// Two buffers serve every step: q (n × l) is overwritten by X Z once
	// Z = Xᵀ Q is computed, and z (m × l) holds Ω, then each Z, then W.
	q, err := orthonormalize(x.mulDense(omega, l), n, l)
	if err != nil {
		return nil, err
	}
	z := omega
	for it := 0; it < rsvdPowerIters; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x.mulTDenseInto(z, q, l)
		if q, err = orthonormalize(x.mulDenseInto(q, z, l), n, l); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w := x.mulTDenseInto(z, q, l) // m × l
	g := mat.NewDense(l, l, x.gram(q, w, l))
	for i := 0; i < l; i++ { // symmetrize away rounding
		for j := i + 1; j < l; j++ {
			s := (g.At(i, j) + g.At(j, i)) / 2
			g.Set(i, j, s)
			g.Set(j, i, s)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(g, mat.SVDThin) {
		return nil, fmt.Errorf("randomized svd: the %d × %d dense svd did not converge", l, l)
	}
	lambda := svd.Values(nil)
	var u mat.Dense
	svd.UTo(&u)
	kk := min(k, l)
	sigma := make([]float64, kk)
	scaled := mat.NewDense(l, kk, nil) // Ũ_k Σ_k⁻¹
	tol := lambda[0] * 1e-12
	for j := 0; j < kk; j++ {
		if lambda[j] <= tol {
			continue
		}
		sigma[j] = math.Sqrt(lambda[j])
		for i := 0; i < l; i++ {
			scaled.Set(i, j, u.At(i, j)/sigma[j])
		}
	}
	v := mat.NewDense(m, kk, nil)
	v.Mul(mat.NewDense(m, l, w), scaled)
	fixSigns(v)
	return &rsvd{v: v, sigma: sigma}, nil
}

// fixSigns flips each column of v so that its largest-magnitude entry is
// positive (the first one on ties). It scans v row by row, in its memory
// order.
func fixSigns(v *mat.Dense) {
	rows, cols := v.Dims()
	raw := v.RawMatrix()
	best := make([]float64, cols)
	at := make([]int, cols)
	for i := 0; i < rows; i++ {
		for j, x := range raw.Data[i*raw.Stride : i*raw.Stride+cols] {
			if a := math.Abs(x); a > best[j] {
				best[j], at[j] = a, i
			}
		}
	}
	flip := make([]bool, cols)
	some := false
	for j := range cols {
		flip[j] = raw.Data[at[j]*raw.Stride+j] < 0
		some = some || flip[j]
	}
	if !some {
		return
	}
	for i := 0; i < rows; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+cols]
		for j := range row {
			if flip[j] {
				row[j] = -row[j]
			}
		}
	}
}
