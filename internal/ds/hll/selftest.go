package hll

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// SelfTest is PFSELFTEST: it checks that dense registers keep the values
// written to them without disturbing their neighbours, and that adding
// ten million distinct elements to a dense and a sparse HLL (the sparse
// one promoted on the way, by sparseMax as hll-sparse-max-bytes) gives
// the same estimates, within six standard errors of the truth at each
// power of ten. The error's text is Redis's.
func SelfTest(sparseMax int64, rng *rand.Rand) error {
	dense := make([]byte, DenseSize)
	r := dense[HeaderSize:]
	var want [Registers]uint8
	for j := 0; j < 1000; j++ {
		for i := range want {
			want[i] = uint8(rng.Uint32() & RegisterMax)
			denseSet(r, i, want[i])
		}
		for i := range want {
			if v := denseGet(r, i); v != want[i] {
				return fmt.Errorf("TESTFAILED Register %d should be %d but is %d", i, want[i], v)
			}
		}
	}

	clear(r)
	copy(dense, "HYLL")
	sparse := New()
	relerr := 1.04 / math.Sqrt(Registers)
	checkpoint := int64(1)
	seed := rng.Uint64()
	var ele [8]byte
	for j := int64(1); j <= 10_000_000; j++ {
		v := uint64(j) ^ seed
		for k := range ele {
			ele[k] = byte(v >> (8 * k))
		}
		idx, n := PatLen(ele[:])
		Set(dense, idx, n, sparseMax)
		sparse, _ = Set(sparse, idx, n, sparseMax)
		if j != checkpoint {
			continue
		}
		if j < sparseMax/2 && sparse[4] != Sparse {
			return fmt.Errorf("TESTFAILED sparse encoding not used")
		}
		dc, _ := Count(dense)
		sc, _ := Count(sparse)
		if dc != sc {
			return fmt.Errorf("TESTFAILED dense/sparse disagree")
		}
		abserr := checkpoint - int64(dc)
		maxerr := int64(math.Ceil(relerr * 6 * float64(checkpoint)))
		if j == 10 {
			maxerr = 1
		}
		if abserr < 0 {
			abserr = -abserr
		}
		if abserr > maxerr {
			return fmt.Errorf("TESTFAILED Too big error. card:%d abserr:%d", checkpoint, abserr)
		}
		checkpoint *= 10
	}
	return nil
}
