package embed

import (
	"bytes"
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
)

var (
	_ encoding.BinaryMarshaler   = (*LSA)(nil)
	_ encoding.BinaryUnmarshaler = (*LSA)(nil)
)

// lsaMagic starts every marshaled LSA model; the byte after it is the
// format version. Version 1 (all integers little-endian):
//
//	magic "FTLSA" | version byte 1 | dim uint32 | seed uint64 | terms uint32
//	terms × (len uvarint, bytes)          the vocabulary, ascending
//	terms × idf float64 (IEEE bits)
//	terms × dim × float32 (IEEE bits)     V_k, row-major
//	crc32 (IEEE) of everything before it  uint32
//
// The tokenizer, stop list and stemmer are part of the version: a change
// to any of them must bump it.
const (
	lsaMagic   = "FTLSA"
	lsaVersion = 1
)

// ErrBadModel is returned by UnmarshalBinary for data that is not a
// version-1 LSA model or is corrupt.
var ErrBadModel = errors.New("not a valid lsa model")

// MarshalBinary encodes the fitted model (format above) for the engine's
// on-disk embedding cache; UnmarshalBinary restores an LSA that embeds
// bit-for-bit like this one. It fails with ErrNotFitted before Fit.
func (e *LSA) MarshalBinary() ([]byte, error) {
	if e.v == nil {
		return nil, fmt.Errorf("embed: %s: marshal: %w", e.Name(), ErrNotFitted)
	}
	var b bytes.Buffer
	b.Grow(len(e.terms)*(12+4*e.dim) + 64)
	b.WriteString(lsaMagic)
	b.WriteByte(lsaVersion)
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(e.dim)))
	b.Write(binary.LittleEndian.AppendUint64(nil, e.seed))
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(e.terms))))
	var buf []byte
	for _, t := range e.terms {
		buf = binary.AppendUvarint(buf[:0], uint64(len(t)))
		b.Write(buf)
		b.WriteString(t)
	}
	buf = buf[:0]
	for _, x := range e.idf {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
	}
	for _, x := range e.v {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
	}
	b.Write(buf)
	b.Write(binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(b.Bytes())))
	return b.Bytes(), nil
}

// UnmarshalBinary replaces e's model with the one encoded by MarshalBinary,
// dimension and seed included. Errors wrap ErrBadModel and say what is
// wrong.
func (e *LSA) UnmarshalBinary(data []byte) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("embed: lsa: unmarshal: %w: %s", ErrBadModel, fmt.Sprintf(format, args...))
	}
	head := len(lsaMagic) + 1 + 4 + 8 + 4
	if len(data) < head+4 || string(data[:len(lsaMagic)]) != lsaMagic {
		return bad("missing %q header", lsaMagic)
	}
	if v := data[len(lsaMagic)]; v != lsaVersion {
		return bad("format version %d, want %d", v, lsaVersion)
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return bad("checksum mismatch (truncated or corrupt)")
	}
	p := body[len(lsaMagic)+1:]
	dim := int(binary.LittleEndian.Uint32(p))
	seed := binary.LittleEndian.Uint64(p[4:])
	n := int(binary.LittleEndian.Uint32(p[12:]))
	p = p[16:]
	if dim < 1 || dim > MaxDim {
		return bad("dimension %d out of range 1-%d", dim, MaxDim)
	}
	if n < 1 || n > len(p) {
		return bad("vocabulary size %d out of range", n)
	}
	terms := make([]string, n)
	vocab := make(map[string]int32, n)
	for i := range terms {
		l, k := binary.Uvarint(p)
		if k <= 0 || l > uint64(len(p)-k) {
			return bad("term %d: bad length", i)
		}
		terms[i] = string(p[k : k+int(l)])
		p = p[k+int(l):]
		if i > 0 && terms[i] <= terms[i-1] {
			return bad("vocabulary not strictly ascending at term %d", i)
		}
		vocab[terms[i]] = int32(i)
	}
	if want := n*8 + n*dim*4; len(p) != want {
		return bad("%d bytes of weights, want %d", len(p), want)
	}
	idf := make([]float64, n)
	for i := range idf {
		idf[i] = math.Float64frombits(binary.LittleEndian.Uint64(p[8*i:]))
	}
	p = p[8*n:]
	v := make([]float32, n*dim)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
	}
	e.dim, e.seed, e.terms, e.vocab, e.idf, e.v = dim, seed, terms, vocab, idf, v
	return nil
}
