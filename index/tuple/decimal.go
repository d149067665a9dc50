package tuple

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Decimal is an arbitrary-precision decimal number: no rounding, no limit
// on magnitude or precision. Its zero value is 0. Decimals equal in value
// are equal as Go values ("25500.10" and "25500.1" parse to the same
// Decimal), so they can be compared with == and used as map keys.
type Decimal struct {
	neg    bool
	digits string // significant digits, no leading or trailing zeros; "" for zero
	exp    int    // value = 0.digits × 10^exp
}

// ParseDecimal parses "25500.12346", "-0.001", "42", "+7", "1.5e-3",
// "1E+400". It rejects NaN, infinities, empty strings, and anything but
// digits, one point, a sign and an exponent.
func ParseDecimal(s string) (Decimal, error) {
	orig := s
	bad := func() (Decimal, error) { return Decimal{}, fmt.Errorf("tuple: malformed decimal %q", orig) }
	var d Decimal
	if s == "" {
		return bad()
	}
	if s[0] == '-' || s[0] == '+' {
		d.neg = s[0] == '-'
		s = s[1:]
	}
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || i+1 == len(s) || e > 1<<30 || e < -(1<<30) {
			return bad()
		}
		exp = e
		s = s[:i]
	}
	intPart, frac, hasPoint := strings.Cut(s, ".")
	if intPart == "" && frac == "" || hasPoint && strings.Contains(frac, ".") {
		return bad()
	}
	for _, part := range []string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return bad()
			}
		}
	}
	all := intPart + frac
	exp += len(intPart)
	// Strip leading zeros (each moves the point) and trailing zeros.
	lead := 0
	for lead < len(all) && all[lead] == '0' {
		lead++
	}
	all = all[lead:]
	exp -= lead
	all = strings.TrimRight(all, "0")
	if all == "" {
		return Decimal{}, nil
	}
	d.digits, d.exp = all, exp
	return d, nil
}

// MustDecimal is ParseDecimal that panics, for constants in code and tests.
func MustDecimal(s string) Decimal {
	d, err := ParseDecimal(s)
	if err != nil {
		panic(err)
	}
	return d
}

// DecimalFromInt returns n as a Decimal.
func DecimalFromInt(n int64) Decimal { return MustDecimal(strconv.FormatInt(n, 10)) }

// DecimalFromBigFloat returns the exact value of a finite big.Float.
func DecimalFromBigFloat(f *big.Float) (Decimal, error) {
	if f.IsInf() {
		return Decimal{}, fmt.Errorf("tuple: infinite decimal")
	}
	return ParseDecimal(f.Text('e', -1))
}

// IsZero reports whether d is 0.
func (d Decimal) IsZero() bool { return d.digits == "" }

// Sign returns -1, 0 or +1.
func (d Decimal) Sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// Neg returns -d.
func (d Decimal) Neg() Decimal {
	if d.digits != "" {
		d.neg = !d.neg
	}
	return d
}

// Cmp compares d and e: -1, 0 or +1.
func (d Decimal) Cmp(e Decimal) int {
	if ds, es := d.Sign(), e.Sign(); ds != es {
		if ds < es {
			return -1
		}
		return 1
	}
	c := cmpAbs(d, e)
	if d.neg {
		return -c
	}
	return c
}

func cmpAbs(d, e Decimal) int {
	if d.digits == "" || e.digits == "" {
		switch {
		case d.digits == e.digits:
			return 0
		case d.digits == "":
			return -1
		}
		return 1
	}
	if d.exp != e.exp {
		if d.exp < e.exp {
			return -1
		}
		return 1
	}
	return strings.Compare(d.digits, e.digits)
}

// String returns the plain (never exponent) form: "25500.1", "-0.001", "42".
func (d Decimal) String() string {
	if d.digits == "" {
		return "0"
	}
	var b strings.Builder
	if d.neg {
		b.WriteByte('-')
	}
	switch {
	case d.exp <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -d.exp))
		b.WriteString(d.digits)
	case d.exp >= len(d.digits):
		b.WriteString(d.digits)
		b.WriteString(strings.Repeat("0", d.exp-len(d.digits)))
	default:
		b.WriteString(d.digits[:d.exp])
		b.WriteByte('.')
		b.WriteString(d.digits[d.exp:])
	}
	return b.String()
}

// BigFloat returns d as a big.Float of the given precision (rounded).
func (d Decimal) BigFloat(prec uint) *big.Float {
	f, _, _ := big.ParseFloat(d.expString(), 10, prec, big.ToNearestEven)
	return f
}

func (d Decimal) expString() string {
	if d.digits == "" {
		return "0"
	}
	s := "0." + d.digits + "e" + strconv.Itoa(d.exp)
	if d.neg {
		return "-" + s
	}
	return s
}

// Float64 returns the nearest float64.
func (d Decimal) Float64() float64 {
	f, _ := strconv.ParseFloat(d.expString(), 64)
	return f
}
