// Package longdouble reproduces the arithmetic and printing of C's long
// double (x87 80-bit extended precision: a 64-bit mantissa, 15-bit
// exponent) that Redis uses for INCRBYFLOAT and HINCRBYFLOAT.
//
// Redis computes those commands in long double and prints with "%.17Lf"
// minus trailing zeros. A big.Float with 64 bits of precision rounds
// exactly like that arithmetic, so "10.5" + "0.1" prints "10.6" here as
// it does in Redis.
//
// # Guarantees
//
//   - Parse accepts what Redis's string2ld accepts (decimal and hex
//     floats, inf/infinity) and rejects the rest: empty input, leading
//     space, trailing garbage, NaN, values beyond long double's range.
//   - Add rounds to nearest even at Prec bits and refuses infinite
//     operands and results beyond long double's range.
//   - Format prints as Redis's ld2string in human mode.
//   - Every function is pure and safe for concurrent use; each call
//     allocates its big.Floats (O(length of the input) time).
package longdouble

import (
	"math/big"
	"strings"
)

// Prec is the mantissa precision of an x87 long double.
const Prec = 64

// Parse parses s as Redis's string2ld does; ok is false for what Redis
// rejects (empty, leading space, trailing garbage, NaN, overflow).
func Parse(s []byte) (*big.Float, bool) {
	if len(s) == 0 || len(s) > 5*1024 || isSpaceByte(s[0]) {
		return nil, false
	}
	str := string(s)
	body := strings.ToLower(strings.TrimLeft(str, "+-"))
	neg := str[0] == '-'
	if len(str)-len(body) > 1 || strings.Contains(str, "_") {
		return nil, false
	}
	switch body {
	case "nan":
		return nil, false
	case "inf", "infinity": // strtold accepts both; INCRBYFLOAT then refuses the result
		return new(big.Float).SetInf(neg), true
	}
	base := 10
	if strings.HasPrefix(body, "0x") {
		// strtold reads hex floats ("0x1p4", "0x10", "0x.8"); big.ParseFloat
		// wants the prefix and reads the mantissa in base 16.
		base = 0
		if body == "0x" || body == "0x." {
			return nil, false
		}
	}
	f, _, err := big.ParseFloat(str, base, Prec, big.ToNearestEven)
	if err != nil {
		return nil, false
	}
	if !f.IsInf() {
		if e := f.MantExp(nil); e > 16384 || (e < -16381 && f.Sign() != 0) {
			return nil, false // beyond long double's range: ERANGE in strtold
		}
	}
	return f, true
}

// Add returns a+b rounded as long double arithmetic rounds; ok is false
// when an operand is infinite or the sum is beyond long double's range
// (Redis: "increment would produce NaN or Infinity").
func Add(a, b *big.Float) (sum *big.Float, ok bool) {
	if a.IsInf() || b.IsInf() {
		return nil, false
	}
	sum = new(big.Float).SetPrec(Prec).SetMode(big.ToNearestEven).Add(a, b)
	if e := sum.MantExp(nil); e > 16384 {
		return nil, false
	}
	return sum, true
}

// Format prints like Redis's ld2string in human mode.
func Format(f *big.Float) string {
	s := f.Text('f', 17)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
