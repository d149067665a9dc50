// Package hll is a port of Redis 7.0's hyperloglog.c: the HyperLogLog
// cardinality estimator in Redis's own string representation, so that a
// value written here is byte for byte the value redis-server writes for
// the same operations, and a value written by redis-server is read here.
//
// # Representation
//
// An HLL is a string: a 16-byte header ("HYLL", the encoding byte, three
// zero bytes, the cached cardinality as 8 little-endian bytes whose top
// bit set means "not valid") followed by 2^14 six-bit registers, either
//
//   - dense: 12288 bytes of packed registers, least significant bits
//     first (DenseSize bytes in all), or
//   - sparse: run-length opcodes, ZERO (00xxxxxx, 1..64 zero registers),
//     XZERO (01xxxxxx xxxxxxxx, 1..16384 zero registers) and VAL
//     (1vvvvvxx, 1..4 registers of value 1..32).
//
// A new HLL is sparse; it is promoted to dense when a register needs a
// value above 32 or when the sparse string would grow past the caller's
// limit (hll-sparse-max-bytes). Elements are hashed with Redis's
// MurmurHash64A (seed 0xadc83b19): 14 bits select the register, the run
// of zeros in the other 50 (plus one) is the value.
//
// # Guarantees
//
//   - The same bytes as Redis 7.0 for every sequence of Set calls
//     (including the in-place opcode splits and merges of the sparse
//     encoding), and the same cardinality estimate (Ertl's improved
//     estimator, written so that Go evaluates it in the same order and
//     precision as the C code: explicit float64 conversions prevent
//     fused multiply-adds).
//   - Corrupted sparse strings are detected where Redis detects them
//     (ErrCorrupt, or a -1 from Set), with the run-length overflow checks
//     of the CVE-2025-32023 fix that Debian's 7.0.15 carries: any opcode
//     that runs past the last register makes the string invalid. Nothing
//     reads or writes out of bounds whatever the input.
//   - No package state; functions on distinct slices are safe for
//     concurrent use.
//
// # Not safe
//
// Functions that write (Set, ToDense, SetCache, Invalidate) modify the
// slice they are given: the caller owns it. Set may return a different
// slice (growth or promotion).
package hll

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"strconv"
)

// Geometry of Redis's HLLs.
const (
	P           = 14                                   // bits of the hash that select a register
	Q           = 64 - P                               // bits left for the run of zeros
	Registers   = 1 << P                               // 16384
	RegBits     = 6                                    // bits per dense register
	RegisterMax = 1<<RegBits - 1                       // 63
	HeaderSize  = 16                                   // "HYLL", encoding, 3 unused, cached cardinality
	DenseSize   = HeaderSize + (Registers*RegBits+7)/8 // 12304
	Dense       = 0                                    // encoding byte of a dense HLL
	Sparse      = 1                                    // encoding byte of a sparse HLL
	maxEncoding = Sparse

	pMask = Registers - 1

	sparseValMaxValue = 32
	sparseValMaxLen   = 4
	sparseZeroMaxLen  = 64
	sparseXZeroMaxLen = 16384

	alphaInf = 0.721347520444481703680 // 0.5/ln(2)
	hashSeed = 0xadc83b19
)

// ErrCorrupt reports a sparse representation whose opcodes do not cover
// exactly the 16384 registers.
var ErrCorrupt = errors.New("hll: corrupted HLL object")

// MurmurHash64A is Redis's endian-neutral MurmurHash2, 64-bit version.
func MurmurHash64A(key []byte, seed uint32) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := uint64(seed) ^ uint64(len(key))*m
	data := key
	for len(data) >= 8 {
		k := binary.LittleEndian.Uint64(data)
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
		data = data[8:]
	}
	switch len(data) {
	case 7:
		h ^= uint64(data[6]) << 48
		fallthrough
	case 6:
		h ^= uint64(data[5]) << 40
		fallthrough
	case 5:
		h ^= uint64(data[4]) << 32
		fallthrough
	case 4:
		h ^= uint64(data[3]) << 24
		fallthrough
	case 3:
		h ^= uint64(data[2]) << 16
		fallthrough
	case 2:
		h ^= uint64(data[1]) << 8
		fallthrough
	case 1:
		h ^= uint64(data[0])
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// PatLen is Redis's hllPatLen: the register ele hashes to and the length
// of the "000..1" pattern of the rest of its hash (1..Q+1).
func PatLen(ele []byte) (index int, count uint8) {
	hash := MurmurHash64A(ele, hashSeed)
	index = int(hash & pMask)
	hash >>= P
	hash |= 1 << Q
	return index, uint8(bits.TrailingZeros64(hash) + 1)
}

// New returns an empty HLL: sparse, all registers zero (one XZERO
// opcode), cached cardinality 0.
func New() []byte {
	b := make([]byte, HeaderSize, HeaderSize+2*((Registers+sparseXZeroMaxLen-1)/sparseXZeroMaxLen))
	copy(b, "HYLL")
	b[4] = Sparse
	for aux := Registers; aux > 0; {
		n := min(aux, sparseXZeroMaxLen)
		b = append(b, byte((n-1)>>8)|0x40, byte(n-1))
		aux -= n
	}
	return b
}

// Valid is Redis's isHLLObjectOrReply on a string: the magic, a known
// encoding, and the exact size for a dense HLL. (A sparse string's
// opcodes are checked only when they are read.)
func Valid(b []byte) bool {
	if len(b) < HeaderSize || string(b[:4]) != "HYLL" || b[4] > maxEncoding {
		return false
	}
	return b[4] != Dense || len(b) == DenseSize
}

// Encoding returns Dense or Sparse (b must be Valid).
func Encoding(b []byte) int { return int(b[4]) }

// Cached returns the cached cardinality and whether it is valid.
func Cached(b []byte) (uint64, bool) {
	return binary.LittleEndian.Uint64(b[8:HeaderSize]), b[15]&0x80 == 0
}

// SetCache stores card as the cached cardinality.
func SetCache(b []byte, card uint64) { binary.LittleEndian.PutUint64(b[8:HeaderSize], card) }

// Invalidate marks the cached cardinality as not valid.
func Invalidate(b []byte) { b[15] |= 0x80 }

// denseGet reads register i of the packed registers r. A register's
// second byte past the end reads as zero (Redis reads the string's
// terminating NUL there).
func denseGet(r []byte, i int) uint8 {
	byt := i * RegBits / 8
	fb := uint(i * RegBits & 7)
	b0 := uint(r[byt])
	var b1 uint
	if byt+1 < len(r) {
		b1 = uint(r[byt+1])
	}
	return uint8((b0>>fb | b1<<(8-fb)) & RegisterMax)
}

// denseSet writes register i of r.
func denseSet(r []byte, i int, val uint8) {
	byt := i * RegBits / 8
	fb := uint(i * RegBits & 7)
	fb8 := 8 - fb
	v := uint(val)
	r[byt] &^= byte(RegisterMax << fb)
	r[byt] |= byte(v << fb)
	if byt+1 < len(r) {
		r[byt+1] &^= byte(RegisterMax >> fb8)
		r[byt+1] |= byte(v >> fb8)
	}
}

// Sparse opcodes.
func isZero(op byte) bool  { return op&0xc0 == 0 }
func isXZero(op byte) bool { return op&0xc0 == 0x40 }
func isVal(op byte) bool   { return op&0x80 != 0 }
func zeroLen(op byte) int  { return int(op&0x3f) + 1 }
func valValue(op byte) int { return int(op>>2&0x1f) + 1 }
func valLen(op byte) int   { return int(op&3) + 1 }
func valOp(val, n int) byte {
	return byte((val-1)<<2|(n-1)) | 0x80
}

// xzeroLen reads the XZERO opcode at b[p]; a second byte past end reads
// as zero, as Redis reads the terminating NUL.
func xzeroLen(b []byte, p, end int) int {
	var lo int
	if p+1 < end {
		lo = int(b[p+1])
	}
	return (int(b[p]&0x3f)<<8 | lo) + 1
}

// opSpan returns the number of registers the opcode at b[p] covers and
// its length in bytes.
func opSpan(b []byte, p, end int) (span, oplen int) {
	switch op := b[p]; {
	case isZero(op):
		return zeroLen(op), 1
	case isVal(op):
		return valLen(op), 1
	}
	return xzeroLen(b, p, end), 2
}

func putZeros(seq []byte, n int) []byte {
	if n > sparseZeroMaxLen {
		return append(seq, byte((n-1)>>8)|0x40, byte(n-1))
	}
	return append(seq, byte(n-1))
}

// Get returns the value of register index, and false if b is a sparse
// HLL whose opcodes end before reaching it.
func Get(b []byte, index int) (uint8, bool) {
	if b[4] == Dense {
		return denseGet(b[HeaderSize:], index), true
	}
	end := len(b)
	first := 0
	for p := HeaderSize; p < end; {
		op := b[p]
		span, oplen := 0, 1
		switch {
		case isZero(op):
			span = zeroLen(op)
		case isVal(op):
			span = valLen(op)
		default:
			span, oplen = xzeroLen(b, p, end), 2
		}
		if index <= first+span-1 {
			if isVal(op) {
				return uint8(valValue(op)), true
			}
			return 0, true
		}
		p += oplen
		first += span
	}
	return 0, false
}

// NeedsSet reports whether Set(b, index, count) would change b (or find
// it corrupted): false exactly when Set would return 0.
func NeedsSet(b []byte, index int, count uint8) bool {
	if b[4] == Sparse && count > sparseValMaxValue {
		return true
	}
	v, ok := Get(b, index)
	return !ok || v < count
}

// Set is Redis's hllDenseSet / hllSparseSet: it raises register index
// (0..Registers-1) to count (1..RegisterMax, as PatLen and Merge give)
// if it is lower. It returns the HLL (b, grown, or a new dense
// string when a sparse one is promoted) and 1 if a register changed, 0
// if not, -1 if the sparse representation is corrupted. A sparse update
// invalidates the cached cardinality; a dense one does not (the caller
// does, as PFADD does). sparseMax is hll-sparse-max-bytes: a sparse
// string that would grow past it is promoted.
func Set(b []byte, index int, count uint8, sparseMax int64) ([]byte, int) {
	if b[4] == Dense {
		r := b[HeaderSize:]
		if count > denseGet(r, index) {
			denseSet(r, index, count)
			return b, 1
		}
		return b, 0
	}
	if count > sparseValMaxValue {
		return promote(b, index, count)
	}

	// Step 1: find the opcode covering index.
	end := len(b)
	p, first, span, prev := HeaderSize, 0, 0, -1
	for p < end {
		op := b[p]
		oplen := 1
		switch {
		case isZero(op):
			span = zeroLen(op)
		case isVal(op):
			span = valLen(op)
		default:
			span, oplen = xzeroLen(b, p, end), 2
		}
		if index <= first+span-1 {
			break
		}
		prev = p
		p += oplen
		first += span
	}
	if span == 0 || p >= end {
		return b, -1
	}
	next := p + 1
	if isXZero(b[p]) {
		next = p + 2
	}
	if next >= end {
		next = -1
	}
	op := b[p]
	var runlen int
	switch {
	case isZero(op):
		runlen = zeroLen(op)
	case isXZero(op):
		runlen = xzeroLen(b, p, end)
	default:
		runlen = valLen(op)
	}

	// Step 2: the trivial updates in place.
	switch {
	case isVal(op) && valValue(op) >= int(count):
		return b, 0
	case isVal(op) && runlen == 1, isZero(op) && runlen == 1:
		b[p] = valOp(int(count), 1)
	default:
		// The general case: split the opcode into up to three.
		var seqBuf [5]byte
		seq := seqBuf[:0]
		last := first + span - 1
		if isVal(op) {
			cur := valValue(op)
			if index != first {
				seq = append(seq, valOp(cur, index-first))
			}
			seq = append(seq, valOp(int(count), 1))
			if index != last {
				seq = append(seq, valOp(cur, last-index))
			}
		} else {
			if index != first {
				seq = putZeros(seq, index-first)
			}
			seq = append(seq, valOp(int(count), 1))
			if index != last {
				seq = putZeros(seq, last-index)
			}
		}
		// Step 3: substitute the sequence for the opcode.
		oldlen := 1
		if isXZero(op) {
			oldlen = 2
		}
		delta := len(seq) - oldlen
		if delta > 0 && int64(len(b)+delta) > sparseMax {
			return promote(b, index, count)
		}
		if delta > 0 {
			b = append(b, seqBuf[:delta]...) // room; overwritten below
		}
		if next >= 0 {
			copy(b[next+delta:], b[next:end])
		}
		end += delta
		b = b[:end]
		copy(b[p:], seq)
	}

	// Step 4: merge adjacent VAL opcodes of the same value, scanning up
	// to 5 opcodes from the one before the change.
	p = prev
	if p < 0 {
		p = HeaderSize
	}
	for scan := 5; p < end && scan > 0; {
		scan--
		if isXZero(b[p]) {
			p += 2
			continue
		}
		if isZero(b[p]) {
			p++
			continue
		}
		if p+1 < end && isVal(b[p+1]) {
			v1, v2 := valValue(b[p]), valValue(b[p+1])
			if n := valLen(b[p]) + valLen(b[p+1]); v1 == v2 && n <= sparseValMaxLen {
				b[p+1] = valOp(v1, n)
				copy(b[p:], b[p+1:end])
				end--
				b = b[:end]
				continue
			}
		}
		p++
	}
	Invalidate(b)
	return b, 1
}

// promote converts the sparse b to dense and sets the register there.
func promote(b []byte, index int, count uint8) ([]byte, int) {
	d, err := ToDense(b)
	if err != nil {
		return b, -1
	}
	denseSet(d[HeaderSize:], index, count)
	return d, 1
}

// ToDense is Redis's hllSparseToDense: the dense form of b (b itself if
// it is dense), with b's header (cached cardinality included).
func ToDense(b []byte) ([]byte, error) {
	if b[4] == Dense {
		return b, nil
	}
	d := make([]byte, DenseSize)
	copy(d, b[:HeaderSize])
	d[4] = Dense
	r := d[HeaderSize:]
	idx, end := 0, len(b)
	for p := HeaderSize; p < end; {
		op := b[p]
		n, oplen := opSpan(b, p, end)
		if n+idx > Registers {
			return nil, ErrCorrupt // overflow
		}
		if isVal(op) {
			for v := uint8(valValue(op)); n > 0; n-- {
				denseSet(r, idx, v)
				idx++
			}
		} else {
			idx += n
		}
		p += oplen
	}
	if idx != Registers {
		return nil, ErrCorrupt
	}
	return d, nil
}

// Merge is Redis's hllMerge: regs[i] = MAX(regs[i], register i of b).
func Merge(regs *[Registers]uint8, b []byte) error {
	if b[4] == Dense {
		r := b[HeaderSize:]
		for i := range regs {
			if v := denseGet(r, i); v > regs[i] {
				regs[i] = v
			}
		}
		return nil
	}
	i, end := 0, len(b)
	for p := HeaderSize; p < end; {
		op := b[p]
		n, oplen := opSpan(b, p, end)
		if n+i > Registers {
			return ErrCorrupt // overflow
		}
		if isVal(op) {
			for v := uint8(valValue(op)); n > 0; n-- {
				if v > regs[i] {
					regs[i] = v
				}
				i++
			}
		} else {
			i += n
		}
		p += oplen
	}
	if i != Registers {
		return ErrCorrupt
	}
	return nil
}

// Count is Redis's hllCount on b, ignoring the cache: the estimated
// cardinality, or ErrCorrupt if b is sparse and its opcodes do not cover
// exactly the registers.
func Count(b []byte) (uint64, error) {
	var histo [64]int
	if b[4] == Dense {
		denseHisto(b[HeaderSize:], &histo)
	} else {
		i, end := 0, len(b)
		for p := HeaderSize; p < end; {
			op := b[p]
			n, oplen := opSpan(b, p, end)
			if n+i > Registers {
				return 0, ErrCorrupt // overflow
			}
			i += n
			if isVal(op) {
				histo[valValue(op)] += n
			} else {
				histo[0] += n
			}
			p += oplen
		}
		if i != Registers {
			return 0, ErrCorrupt
		}
	}
	return estimate(&histo), nil
}

// CountRegisters is the estimated cardinality of registers given one per
// byte (PFCOUNT of several keys, after Merge).
func CountRegisters(regs *[Registers]uint8) uint64 {
	var histo [64]int
	for _, v := range regs {
		histo[v&63]++
	}
	return estimate(&histo)
}

// denseHisto counts the values of the packed registers r, 16 registers
// (12 bytes) at a time.
func denseHisto(r []byte, histo *[64]int) {
	for j := 0; j+12 <= len(r); j += 12 {
		b := r[j : j+12 : j+12]
		histo[b[0]&63]++
		histo[(b[0]>>6|b[1]<<2)&63]++
		histo[(b[1]>>4|b[2]<<4)&63]++
		histo[(b[2]>>2)&63]++
		histo[b[3]&63]++
		histo[(b[3]>>6|b[4]<<2)&63]++
		histo[(b[4]>>4|b[5]<<4)&63]++
		histo[(b[5]>>2)&63]++
		histo[b[6]&63]++
		histo[(b[6]>>6|b[7]<<2)&63]++
		histo[(b[7]>>4|b[8]<<4)&63]++
		histo[(b[8]>>2)&63]++
		histo[b[9]&63]++
		histo[(b[9]>>6|b[10]<<2)&63]++
		histo[(b[10]>>4|b[11]<<4)&63]++
		histo[(b[11]>>2)&63]++
	}
}

// estimate is the cardinality estimate of a register histogram: Otmar
// Ertl, "New cardinality estimation algorithms for HyperLogLog sketches"
// (arXiv:1702.01284), as Redis computes it.
func estimate(histo *[64]int) uint64 {
	m := float64(Registers)
	z := m * tau((m-float64(histo[Q+1]))/m)
	for j := Q; j >= 1; j-- {
		z += float64(histo[j])
		z *= 0.5
	}
	z += float64(m * sigma(float64(histo[0])/m))
	e := math.Round(float64(float64(alphaInf*m)*m) / z) // llroundl: half away from zero
	return uint64(e)
}

func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		zPrime := z
		z += float64(x * y)
		y += y
		if zPrime == z {
			return z
		}
	}
}

func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		zPrime := z
		y *= 0.5
		d := 1 - x
		z -= float64(float64(d*d) * y)
		if zPrime == z {
			return z / 3
		}
	}
}

// DenseRegisters returns the 16384 register values of a dense HLL.
func DenseRegisters(b []byte) []uint8 {
	out := make([]uint8, Registers)
	r := b[HeaderSize:]
	for i := range out {
		out[i] = denseGet(r, i)
	}
	return out
}

// Decode is PFDEBUG DECODE's text for a sparse HLL: "z:n" for ZERO,
// "Z:n" for XZERO, "v:value,n" for VAL, separated by spaces.
func Decode(b []byte) string {
	var out []byte
	end := len(b)
	for p := HeaderSize; p < end; {
		if len(out) > 0 {
			out = append(out, ' ')
		}
		op := b[p]
		switch {
		case isZero(op):
			out = append(out, "z:"...)
			out = strconv.AppendInt(out, int64(zeroLen(op)), 10)
			p++
		case isXZero(op):
			out = append(out, "Z:"...)
			out = strconv.AppendInt(out, int64(xzeroLen(b, p, end)), 10)
			p += 2
		default:
			out = append(out, "v:"...)
			out = strconv.AppendInt(out, int64(valValue(op)), 10)
			out = append(out, ',')
			out = strconv.AppendInt(out, int64(valLen(op)), 10)
			p++
		}
	}
	return string(out)
}
