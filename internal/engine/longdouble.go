package engine

import (
	"math/big"
	"strings"
)

// Redis computes INCRBYFLOAT and HINCRBYFLOAT in C's long double (x87
// 80-bit: a 64-bit mantissa) and prints with "%.17Lf" minus trailing
// zeros. A big.Float with 64 bits of precision rounds exactly like that
// arithmetic, so "10.5" + "0.1" prints "10.6" here as it does in Redis.

const longDoublePrec = 64

// parseLongDouble parses s as Redis's string2ld does; ok is false for what
// Redis rejects (empty, leading space, trailing garbage, NaN, overflow).
func parseLongDouble(s []byte) (*big.Float, bool) {
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
	f, _, err := big.ParseFloat(str, base, longDoublePrec, big.ToNearestEven)
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

// IncrLongDouble adds incr to cur as Redis's INCRBYFLOAT does. errMsg is
// the error reply when it fails.
func IncrLongDouble(cur string, incr []byte, notFloat string) (string, string) {
	a := new(big.Float).SetPrec(longDoublePrec)
	if cur != "" {
		v, ok := parseLongDouble([]byte(cur))
		if !ok {
			return "", notFloat
		}
		a = v
	}
	b, ok := parseLongDouble(incr)
	if !ok {
		return "", ErrNotFloat
	}
	if a.IsInf() || b.IsInf() {
		return "", "ERR increment would produce NaN or Infinity"
	}
	sum := new(big.Float).SetPrec(longDoublePrec).SetMode(big.ToNearestEven).Add(a, b)
	if e := sum.MantExp(nil); e > 16384 {
		return "", "ERR increment would produce NaN or Infinity"
	}
	return FormatLongDouble(sum), ""
}

// FormatLongDouble prints like Redis's ld2string in human mode.
func FormatLongDouble(f *big.Float) string {
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
