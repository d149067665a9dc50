package search

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/resp"
)

// The values FT.AGGREGATE's pipeline computes with (RediSearch's RSValue):
// null, number, string or array.

type vkind uint8

const (
	vNull vkind = iota
	vNum
	vStr
	vArr
)

type val struct {
	k vkind
	n float64
	// s is a string's text, or a number's exact decimal text when it was
	// read from a document (replies show it as stored, and two such
	// numbers compare exactly); "" for a computed number.
	s string
	a []val
}

var nullVal = val{}

func numVal(f float64) val { return val{k: vNum, n: f} }
func strVal(s string) val  { return val{k: vStr, s: s} }
func boolVal(b bool) val   { return numVal(b2f(b)) }
func arrVal(a []val) val   { return val{k: vArr, a: a} }
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// docNum is a NUMERIC field's text as a number value (or its text, if it
// is not a number).
func docNum(s string) val {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		return strVal(s)
	}
	return val{k: vNum, n: f, s: s}
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// fmtNum formats a computed number as RediSearch 2.x does: an integral
// value in full ("%lld"), anything else with "%.12g".
func fmtNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 9.2e18 {
		return strconv.FormatInt(int64(f), 10)
	}
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return fmtG(f, 12)
}

// fmtG is C's "%.*g".
func fmtG(f float64, prec int) string {
	s := strconv.FormatFloat(f, 'g', prec, 64)
	// Go keeps trailing zeros out already for 'g' with a precision only
	// when they are not significant; C's %g strips them too. Go writes
	// exponents as e+06 like C, but C pads to two digits, Go too.
	if strings.ContainsAny(s, "e") {
		mant, exp, _ := strings.Cut(s, "e")
		if strings.Contains(mant, ".") {
			mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
		}
		return mant + "e" + exp
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// text is v as a string (RSValue_ToString).
func (v val) text() string {
	switch v.k {
	case vNum:
		if v.s != "" {
			return v.s
		}
		return fmtNum(v.n)
	case vStr:
		return v.s
	}
	return ""
}

// num converts v to a number (RSValue_ToNumber).
func (v val) num() (float64, bool) {
	switch v.k {
	case vNum:
		return v.n, true
	case vStr:
		s := strings.TrimSpace(v.s)
		if s == "" {
			return 0, false
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !isRangeErr(err) {
			return 0, false
		}
		return f, true
	}
	return 0, false
}

// truthy is RSValue_BoolTest.
func (v val) truthy() bool {
	switch v.k {
	case vNum:
		return v.n != 0
	case vStr:
		return v.s != ""
	case vArr:
		return len(v.a) > 0
	}
	return false
}

func cmpFloat(a, b float64) int {
	switch {
	case a > b:
		return 1
	case a < b:
		return -1
	}
	return 0
}

// cmpNums compares two numbers, exactly when both are document decimals.
func cmpNums(a, b val) int {
	if a.s != "" && b.s != "" {
		ka, ok1 := parseNumber(a.s)
		kb, ok2 := parseNumber(b.s)
		if ok1 && ok2 {
			return strings.Compare(ka, kb)
		}
	}
	return cmpFloat(a.n, b.n)
}

// cmpVal is RSValue_Cmp: same kinds compare naturally; null is lowest; a
// number and a numeric string compare as numbers; else as strings.
func cmpVal(a, b val) int {
	if a.k == b.k {
		switch a.k {
		case vNum:
			return cmpNums(a, b)
		case vStr:
			return strings.Compare(a.s, b.s)
		}
		return 0
	}
	if a.k == vNull {
		return -1
	}
	if b.k == vNull {
		return 1
	}
	if a.k == vNum {
		if f, ok := b.num(); ok {
			return cmpFloat(a.n, f)
		}
	} else if b.k == vNum {
		if f, ok := a.num(); ok {
			return cmpFloat(f, b.n)
		}
	}
	return strings.Compare(a.text(), b.text())
}

// eqVal is RSValue_Equal.
func eqVal(a, b val) bool {
	if a.k == b.k {
		return cmpVal(a, b) == 0
	}
	if a.k == vNull || b.k == vNull {
		return false
	}
	if a.k == vNum {
		f, ok := b.num()
		return ok && a.n == f
	}
	if b.k == vNum {
		f, ok := a.num()
		return ok && f == b.n
	}
	return a.text() == b.text()
}

// writeGroupKey appends v's identity, self-delimiting, to a group key.
func (v val) writeGroupKey(sb *strings.Builder) {
	switch v.k {
	case vNum:
		f := v.n
		if f == 0 {
			f = 0 // -0 and 0 are one group
		}
		var b [9]byte
		b[0] = 'n'
		binary.LittleEndian.PutUint64(b[1:], math.Float64bits(f))
		sb.Write(b[:])
	case vStr:
		sb.WriteByte('s')
		sb.WriteString(strconv.Itoa(len(v.s)))
		sb.WriteByte(':')
		sb.WriteString(v.s)
	default:
		gk := v.groupKey()
		sb.WriteString(strconv.Itoa(len(gk)))
		sb.WriteByte(':')
		sb.WriteString(gk)
	}
}

// groupKey is v's identity for GROUPBY and COUNT_DISTINCT.
func (v val) groupKey() string {
	switch v.k {
	case vNum:
		f := v.n
		if f == 0 {
			f = 0
		}
		return "n" + strconv.FormatUint(math.Float64bits(f), 16)
	case vStr:
		return "s" + v.s
	case vArr:
		var sb strings.Builder
		sb.WriteByte('a')
		for _, e := range v.a {
			k := e.groupKey()
			sb.WriteString(strconv.Itoa(len(k)))
			sb.WriteByte(':')
			sb.WriteString(k)
		}
		return sb.String()
	}
	return "0"
}

// write sends v as RediSearch does: numbers and strings as bulk strings,
// null as a null, arrays as arrays.
func (v val) write(w *resp.Writer) {
	switch v.k {
	case vNum, vStr:
		w.BulkString(v.text())
	case vArr:
		w.Array(len(v.a))
		for _, e := range v.a {
			e.write(w)
		}
	default:
		w.Null()
	}
}
