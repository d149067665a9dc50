package resp

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendGMatchesReference checks the one-pass %g formatter (and
// AppendDouble's integer shortcut) byte for byte against the previous
// two-pass one, on random bit patterns, integers, short decimals and the
// edges of the fixed/exponent switch, for every precision used.
func TestAppendGMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var vals []float64
	for _, v := range []float64{1, -1, 0.5, 1e-4, 9.9999999999999995e-5, 1e-5, 1e16, 1e17, 99999999999999999, 1e17 - 8, 123456789012345678,
		math.MaxFloat64, math.SmallestNonzeroFloat64, -math.MaxFloat64, 2.5, 0.1, 1.0 / 3, 9.5, 99.5, 0.99999999999999999,
		1 << 52, 1<<53 + 2, -(1 << 62), math.MaxInt64, math.MinInt64, 1e15 + 0.5, 12345.678} {
		vals = append(vals, v, -v, math.Nextafter(v, 0), math.Nextafter(v, math.Inf(1)))
	}
	for i := 0; i < 200000; i++ {
		vals = append(vals,
			math.Float64frombits(rng.Uint64()),
			float64(rng.Int64N(1<<60)>>rng.IntN(60)),
			float64(rng.IntN(2000000)-1000000)/float64([]int{1, 2, 4, 10, 100, 1000, 1e6}[rng.IntN(7)]),
			math.Pow(10, float64(rng.IntN(40)-20))*rng.Float64())
	}
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		for _, p := range []int{14, 17} {
			if got, want := string(AppendG(nil, v, p)), string(refAppendG(nil, v, p)); got != want {
				t.Fatalf("AppendG(%v, %d) = %q, want %q", v, p, got, want)
			}
		}
		if got, want := string(AppendDouble([]byte("x"), v)), "x"+string(refAppendG(nil, v, 17)); got != want {
			t.Fatalf("AppendDouble(%v) = %q, want %q (%s)", v, got, want, strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
}

// refAppendG is the previous AppendG, the reference.
func refAppendG(dst []byte, d float64, prec int) []byte {
	switch {
	case math.IsInf(d, 1):
		return append(dst, "inf"...)
	case math.IsInf(d, -1):
		return append(dst, "-inf"...)
	case d != d:
		if math.Signbit(d) {
			return append(dst, "-nan"...)
		}
		return append(dst, "nan"...)
	}
	if d == 0 {
		if math.Signbit(d) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	}
	// Exponent of d once rounded to prec significant digits.
	e := strconv.AppendFloat(nil, d, 'e', prec-1, 64)
	i := len(e) - 1
	for e[i] != 'e' {
		i--
	}
	x, _ := strconv.Atoi(string(e[i+1:]))
	if x < -4 || x >= prec {
		// Mantissa with trailing zeros removed, exponent at least two digits.
		mant := e[:i]
		if dot := refIndexByte(mant, '.'); dot >= 0 {
			j := len(mant)
			for j > dot+1 && mant[j-1] == '0' {
				j--
			}
			if j == dot+1 {
				j = dot
			}
			mant = mant[:j]
		}
		dst = append(dst, mant...)
		dst = append(dst, 'e')
		if x < 0 {
			dst = append(dst, '-')
			x = -x
		} else {
			dst = append(dst, '+')
		}
		if x < 10 {
			dst = append(dst, '0')
		}
		return strconv.AppendInt(dst, int64(x), 10)
	}
	f := strconv.AppendFloat(dst, d, 'f', prec-1-x, 64)
	if refIndexByte(f[len(dst):], '.') >= 0 {
		j := len(f)
		for f[j-1] == '0' {
			j--
		}
		if f[j-1] == '.' {
			j--
		}
		f = f[:j]
	}
	return f
}

func refIndexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
